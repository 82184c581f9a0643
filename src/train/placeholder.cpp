namespace flashnerd::train { int placeholder_unused = 0; }
