#include "core/recorded_log.h"

#include <zlib.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"

namespace flashnerd {

const std::vector<double>* RecordedLog::find(const std::string& name) const {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return &columns[i];
  return nullptr;
}

namespace {

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r");
  const size_t b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

std::vector<std::string> split_commas(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) cells.push_back(trim(cell));
  if (!line.empty() && line.back() == ',') cells.emplace_back();
  return cells;
}

void check_unique(const RecordedLog& log, const std::string& path) {
  for (size_t i = 0; i < log.names.size(); ++i) {
    FN_CHECK(!log.names[i].empty(), path, ": column ", i + 1, " has no name");
    for (size_t j = 0; j < i; ++j)
      FN_CHECK(log.names[i] != log.names[j], path, ": column '", log.names[i], "' appears twice");
  }
}

template <class T>
T load_le(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));  // x86-64 and the formats are little-endian
  return v;
}

// One numpy .npy array (1-D) as doubles; `what` names it in errors.
std::vector<double> parse_npy(const std::string& bytes, const std::string& what) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  FN_CHECK(bytes.size() >= 10 && std::memcmp(p, "\x93NUMPY", 6) == 0, what, ": not a numpy .npy array");
  const int major = p[6];
  const size_t header_len = major == 1 ? load_le<uint16_t>(p + 8) : load_le<uint32_t>(p + 8);
  const size_t header_at = major == 1 ? 10 : 12;
  FN_CHECK(major >= 1 && major <= 3 && header_at + header_len <= bytes.size(), what, ": bad .npy header");
  const std::string header = bytes.substr(header_at, header_len);
  auto value_of = [&](const std::string& key) {
    const size_t k = header.find("'" + key + "'");
    FN_CHECK(k != std::string::npos, what, ": .npy header lacks '", key, "'");
    return header.substr(header.find(':', k) + 1);
  };
  const std::string descr = value_of("descr");
  const size_t q0 = descr.find('\''), q1 = descr.find('\'', q0 + 1);
  const std::string type = descr.substr(q0 + 1, q1 - q0 - 1);
  const std::string shape = value_of("shape");
  const size_t s0 = shape.find('('), s1 = shape.find(')');
  std::string dims = shape.substr(s0 + 1, s1 - s0 - 1);
  std::vector<int64_t> extent;
  for (const std::string& d : split_commas(dims))
    if (!d.empty()) extent.push_back(std::strtoll(d.c_str(), nullptr, 10));
  FN_CHECK(extent.size() == 1, what, ": expected a 1-D array (one column), got ", extent.size(), " dimensions");
  const int64_t n = extent[0];
  size_t width = 0;
  if (type == "<f8" || type == "<i8") width = 8;
  if (type == "<f4" || type == "<i4") width = 4;
  FN_CHECK(width > 0, what, ": dtype '", type, "' is not read (float64, float32, int64 or int32)");
  const size_t data_at = header_at + header_len;
  FN_CHECK(n >= 0 && bytes.size() - data_at == size_t(n) * width, what, ": holds ", bytes.size() - data_at,
           " data bytes, not the ", n, " x ", width, " its header says");
  std::vector<double> out(static_cast<size_t>(n));
  const unsigned char* d = p + data_at;
  for (int64_t i = 0; i < n; ++i) {
    const unsigned char* e = d + size_t(i) * width;
    if (type == "<f8") out[size_t(i)] = load_le<double>(e);
    if (type == "<f4") out[size_t(i)] = load_le<float>(e);
    if (type == "<i8") out[size_t(i)] = double(load_le<int64_t>(e));
    if (type == "<i4") out[size_t(i)] = load_le<int32_t>(e);
  }
  return out;
}

}  // namespace

RecordedLog read_log_csv(const std::string& path) {
  std::stringstream in(read_file(path));
  std::string line;
  RecordedLog log;
  FN_CHECK(std::getline(in, line), path, ": empty file; expected a header row of column names");
  log.names = split_commas(line);
  check_unique(log, path);
  log.columns.resize(log.names.size());
  for (int64_t lineno = 2; std::getline(in, line); ++lineno) {
    if (trim(line).empty()) continue;
    const auto cells = split_commas(line);
    FN_CHECK(cells.size() == log.names.size(), path, ": line ", lineno, " has ", cells.size(), " cells, the header ",
             log.names.size());
    for (size_t c = 0; c < cells.size(); ++c) {
      double v = std::numeric_limits<double>::quiet_NaN();  // an empty cell is a missing value
      if (!cells[c].empty()) {
        char* end = nullptr;
        v = std::strtod(cells[c].c_str(), &end);
        FN_CHECK(end && *end == '\0', path, ": line ", lineno, ", column '", log.names[c], "': '", cells[c],
                 "' is not a number");
      }
      log.columns[c].push_back(v);
    }
  }
  FN_CHECK(log.rows() > 0, path, ": no data rows after the header");
  return log;
}

RecordedLog read_log_npz(const std::string& path) {
  const std::string zip = read_file(path);
  const auto* p = reinterpret_cast<const unsigned char*>(zip.data());
  const size_t n = zip.size();
  // end of central directory: the last "PK\5\6" within the final 64 KiB + 22 bytes
  size_t eocd = std::string::npos;
  for (size_t i = n >= 22 ? n - 22 : 0; i + 22 <= n && i + 65557 >= n; --i) {
    if (load_le<uint32_t>(p + i) == 0x06054b50) {
      eocd = i;
      break;
    }
    if (i == 0) break;
  }
  FN_CHECK(eocd != std::string::npos, path, ": not a .npz (zip) archive");
  const uint16_t entries = load_le<uint16_t>(p + eocd + 10);
  size_t at = load_le<uint32_t>(p + eocd + 16);
  RecordedLog log;
  for (uint16_t k = 0; k < entries; ++k) {
    FN_CHECK(at + 46 <= n && load_le<uint32_t>(p + at) == 0x02014b50, path, ": corrupt zip central directory");
    const uint16_t method = load_le<uint16_t>(p + at + 10);
    const uint32_t packed = load_le<uint32_t>(p + at + 20), size = load_le<uint32_t>(p + at + 24);
    const uint16_t name_len = load_le<uint16_t>(p + at + 28), extra = load_le<uint16_t>(p + at + 30),
                   comment = load_le<uint16_t>(p + at + 32);
    const uint32_t local = load_le<uint32_t>(p + at + 42);
    FN_CHECK(at + 46 + name_len <= n, path, ": corrupt zip central directory");
    std::string name = zip.substr(at + 46, name_len);
    at += 46 + name_len + extra + comment;
    FN_CHECK(packed != 0xFFFFFFFFu && size != 0xFFFFFFFFu, path, ": entry '", name, "' is ZIP64 (over 4 GiB)");
    FN_CHECK(size_t(local) + 30 <= n && load_le<uint32_t>(p + local) == 0x04034b50, path, ": corrupt entry '", name, "'");
    const size_t data_at = local + 30 + load_le<uint16_t>(p + local + 26) + load_le<uint16_t>(p + local + 28);
    FN_CHECK(data_at + packed <= n, path, ": entry '", name, "' runs past the end of the file");
    std::string bytes;
    if (method == 0) {
      bytes = zip.substr(data_at, packed);
    } else {
      FN_CHECK(method == 8, path, ": entry '", name, "' uses zip method ", method, " (stored or deflate only)");
      bytes.resize(size);
      z_stream z{};
      FN_CHECK(inflateInit2(&z, -MAX_WBITS) == Z_OK, "zlib: inflateInit2 failed");
      z.next_in = const_cast<Bytef*>(p + data_at);
      z.avail_in = packed;
      z.next_out = reinterpret_cast<Bytef*>(bytes.data());
      z.avail_out = size;
      const int r = inflate(&z, Z_FINISH);
      const bool whole = r == Z_STREAM_END && z.total_out == size;
      inflateEnd(&z);
      FN_CHECK(whole, path, ": entry '", name, "' does not inflate to its ", size, " bytes");
    }
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0) name.resize(name.size() - 4);
    log.columns.push_back(parse_npy(bytes, path + ": '" + name + "'"));
    log.names.push_back(name);
    FN_CHECK(log.columns.back().size() == log.columns.front().size(), path, ": column '", name, "' has ",
             log.columns.back().size(), " values, '", log.names.front(), "' ", log.columns.front().size());
  }
  check_unique(log, path);
  FN_CHECK(log.rows() > 0, path, ": no columns or no rows");
  return log;
}

RecordedLog read_recorded_log(const std::string& path) {
  auto ends_with = [&](const char* ext) {
    const size_t e = std::strlen(ext);
    return path.size() >= e && path.compare(path.size() - e, e, ext) == 0;
  };
  if (ends_with(".csv")) return read_log_csv(path);
  if (ends_with(".npz")) return read_log_npz(path);
  throw Error(str_cat(path, ": expected a .csv or .npz log"));
}

}  // namespace flashnerd
