// (temporary translation unit until the sim sources land)
namespace flashnerd::sim { int placeholder_unused = 0; }
