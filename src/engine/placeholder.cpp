namespace flashnerd::engine { int placeholder_unused = 0; }
