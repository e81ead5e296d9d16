#include "core/npy.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>
#include <optional>
#include <vector>

#include "support/error.h"
#include "support/file_io.h"

namespace kiln {

static_assert(std::endian::native == std::endian::little, "kiln's .npy code assumes a little-endian host");

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
constexpr size_t kAlign = 64;
constexpr const char* kBf16Descr = "[('bf16', '<u2')]";
constexpr const char* kKnownDescrs = "|b1 |u1 |i1 <i2 <i4 <i8 <f2 <f4 <f8 and [('bf16', '<u2')]";

// ---- the header: a Python literal (dict, tuple, list, str, int, bool) ----

struct PyValue {
  enum class Kind { Str, Int, Bool, None, Tuple, List, Dict } kind = Kind::None;
  std::string str;
  int64_t num = 0;
  bool flag = false;
  std::vector<PyValue> items;  // Tuple/List elements; Dict: key, value, key, value, ...
};

class LiteralParser {
 public:
  explicit LiteralParser(std::string_view text) : text_(text) {}

  // Parses the whole text as one literal; on failure `error()` says why.
  bool parse(PyValue& out) {
    if (!value(out, 0)) return false;
    skip_space();
    if (pos_ != text_.size()) return fail("unexpected text after the header dict");
    return true;
  }
  const std::string& error() const { return error_; }

 private:
  static constexpr int kMaxDepth = 8;

  bool fail(std::string msg) {
    if (error_.empty()) error_ = std::move(msg) + " at header offset " + std::to_string(pos_);
    return false;
  }
  void skip_space() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }
  bool eat(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool word(std::string_view w) {
    if (text_.substr(pos_, w.size()) != w) return false;
    pos_ += w.size();
    return true;
  }

  bool value(PyValue& out, int depth) {
    if (depth > kMaxDepth) return fail("header nests too deeply");
    skip_space();
    if (pos_ >= text_.size()) return fail("header ends early");
    char c = text_[pos_];
    if (c == '\'' || c == '"') return string(out);
    if (c == '-' || (c >= '0' && c <= '9')) return integer(out);
    if (c == '(') return sequence(out, PyValue::Kind::Tuple, ')', depth);
    if (c == '[') return sequence(out, PyValue::Kind::List, ']', depth);
    if (c == '{') return dict(out, depth);
    if (word("True")) return out.kind = PyValue::Kind::Bool, out.flag = true, true;
    if (word("False")) return out.kind = PyValue::Kind::Bool, out.flag = false, true;
    if (word("None")) return out.kind = PyValue::Kind::None, true;
    return fail(std::string("unexpected character '") + c + "'");
  }

  bool string(PyValue& out) {
    char quote = text_[pos_++];
    out.kind = PyValue::Kind::Str;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\') return fail("escapes in header strings are not supported");
      out.str += text_[pos_++];
    }
    if (pos_ >= text_.size()) return fail("unterminated string");
    ++pos_;
    return true;
  }

  bool integer(PyValue& out) {
    bool neg = text_[pos_] == '-';
    if (neg) ++pos_;
    size_t start = pos_;
    int64_t v = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, text_[pos_] - '0', &v))
        return fail("integer too large");
      ++pos_;
    }
    if (pos_ == start) return fail("expected digits");
    if (pos_ < text_.size() && text_[pos_] == 'L') ++pos_;  // Python 2 longs
    out.kind = PyValue::Kind::Int;
    out.num = neg ? -v : v;
    return true;
  }

  bool sequence(PyValue& out, PyValue::Kind kind, char close, int depth) {
    ++pos_;
    out.kind = kind;
    while (true) {
      if (eat(close)) return true;
      PyValue item;
      if (!value(item, depth + 1)) return false;
      out.items.push_back(std::move(item));
      if (eat(',')) continue;
      if (eat(close)) return true;
      return fail(std::string("expected ',' or '") + close + "'");
    }
  }

  bool dict(PyValue& out, int depth) {
    ++pos_;
    out.kind = PyValue::Kind::Dict;
    while (true) {
      if (eat('}')) return true;
      PyValue key, val;
      if (!value(key, depth + 1)) return false;
      if (!eat(':')) return fail("expected ':' in the header dict");
      if (!value(val, depth + 1)) return false;
      out.items.push_back(std::move(key));
      out.items.push_back(std::move(val));
      if (eat(',')) continue;
      if (eat('}')) return true;
      return fail("expected ',' or '}' in the header dict");
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::string error_;
};

// ---- descrs ----

struct Descr {
  DType dtype;
  bool swap;  // big-endian data
};

std::string shape_text(const std::vector<int64_t>& sizes) {
  std::string s = "(";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  if (sizes.size() == 1) s += ",";
  return s + ")";
}

std::string descr_text(const PyValue& v) {
  if (v.kind == PyValue::Kind::Str) return "'" + v.str + "'";
  if (v.kind == PyValue::Kind::List || v.kind == PyValue::Kind::Tuple) {
    std::string s = v.kind == PyValue::Kind::List ? "[" : "(";
    for (size_t i = 0; i < v.items.size(); ++i) s += (i ? ", " : "") + descr_text(v.items[i]);
    return s + (v.kind == PyValue::Kind::List ? "]" : ")");
  }
  if (v.kind == PyValue::Kind::Int) return std::to_string(v.num);
  return "<value>";
}

std::optional<Descr> simple_descr(const std::string& s) {
  if (s.size() != 3) return std::nullopt;
  char order = s[0];
  std::string code = s.substr(1);
  struct Entry {
    const char* code;
    DType dtype;
  };
  static constexpr Entry kTable[] = {
      {"b1", DType::Bool}, {"u1", DType::U8},  {"i1", DType::I8},  {"i2", DType::I16}, {"i4", DType::I32},
      {"i8", DType::I64},  {"f2", DType::F16}, {"f4", DType::F32}, {"f8", DType::F64},
  };
  for (const Entry& e : kTable) {
    if (code != e.code) continue;
    bool one_byte = dtype_size(e.dtype) == 1;
    if (order == '|' && one_byte) return Descr{e.dtype, false};
    if (order == '<' || order == '=') return Descr{e.dtype, false};
    if (order == '>') return Descr{e.dtype, !one_byte};
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<Descr> parse_descr(const PyValue& v) {
  if (v.kind == PyValue::Kind::Str) return simple_descr(v.str);
  // [('bf16', '<u2')]
  if (v.kind != PyValue::Kind::List || v.items.size() != 1) return std::nullopt;
  const PyValue& field = v.items[0];
  if (field.kind != PyValue::Kind::Tuple || field.items.size() != 2) return std::nullopt;
  if (field.items[0].kind != PyValue::Kind::Str || field.items[0].str != "bf16") return std::nullopt;
  if (field.items[1].kind != PyValue::Kind::Str) return std::nullopt;
  const std::string& code = field.items[1].str;
  if (code == "<u2" || code == "=u2") return Descr{DType::BF16, false};
  if (code == ">u2") return Descr{DType::BF16, true};
  return std::nullopt;
}

const PyValue* dict_get(const PyValue& dict, std::string_view key) {
  for (size_t i = 0; i + 1 < dict.items.size(); i += 2)
    if (dict.items[i].kind == PyValue::Kind::Str && dict.items[i].str == key) return &dict.items[i + 1];
  return nullptr;
}

uint64_t read_le(const unsigned char* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

std::string npy_descr(DType dtype) {
  switch (dtype) {
    case DType::Bool: return "|b1";
    case DType::U8: return "|u1";
    case DType::I8: return "|i1";
    case DType::I16: return "<i2";
    case DType::I32: return "<i4";
    case DType::I64: return "<i8";
    case DType::F16: return "<f2";
    case DType::BF16: return kBf16Descr;
    case DType::F32: return "<f4";
    case DType::F64: return "<f8";
  }
  return "?";
}

Expected<Tensor> npy_from_bytes(std::string_view bytes, std::string_view name) {
  std::string file(name);
  auto err = [&](auto&&... parts) { return make_error(file, ": ", std::forward<decltype(parts)>(parts)...); };
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());

  if (bytes.size() < kMagicLen || std::memcmp(bytes.data(), kMagic, kMagicLen) != 0)
    return err("not a .npy file (bad magic string; expected \\x93NUMPY)");
  if (bytes.size() < kMagicLen + 2) return err("truncated header (no format version)");
  int major = data[6], minor = data[7];
  if (major < 1 || major > 3 || minor != 0)
    return err("unsupported .npy format version ", major, ".", minor, " (kiln reads 1.0, 2.0 and 3.0)");
  size_t len_bytes = major == 1 ? 2 : 4;
  size_t prefix = kMagicLen + 2 + len_bytes;
  if (bytes.size() < prefix) return err("truncated header (no header length)");
  uint64_t header_len = read_le(data + kMagicLen + 2, static_cast<int>(len_bytes));
  if (bytes.size() - prefix < header_len)
    return err("truncated header (the header says ", header_len, " bytes, the file has ", bytes.size() - prefix,
               " after the header length)");
  std::string_view header = bytes.substr(prefix, header_len);
  for (unsigned char c : header)
    if (c >= 0x80 || (c < 0x20 && c != '\n' && c != '\t' && c != '\r'))
      return err("malformed header (unexpected byte ", static_cast<int>(c), " in the header text)");

  PyValue dict;
  LiteralParser parser(header);
  if (!parser.parse(dict)) return err("malformed header: ", parser.error());
  if (dict.kind != PyValue::Kind::Dict) return err("malformed header: not a dict");
  for (size_t i = 0; i < dict.items.size(); i += 2) {
    const PyValue& k = dict.items[i];
    if (k.kind != PyValue::Kind::Str || (k.str != "descr" && k.str != "fortran_order" && k.str != "shape"))
      return err("malformed header: unexpected key ", descr_text(k));
  }
  const PyValue* descr_v = dict_get(dict, "descr");
  const PyValue* fortran_v = dict_get(dict, "fortran_order");
  const PyValue* shape_v = dict_get(dict, "shape");
  if (!descr_v || !fortran_v || !shape_v)
    return err("malformed header: it needs the keys 'descr', 'fortran_order' and 'shape'");

  std::optional<Descr> descr = parse_descr(*descr_v);
  if (!descr) return err("unsupported descr ", descr_text(*descr_v), " (kiln reads ", kKnownDescrs, ")");
  if (fortran_v->kind != PyValue::Kind::Bool) return err("malformed header: 'fortran_order' is not True or False");
  bool fortran = fortran_v->flag;
  if (shape_v->kind != PyValue::Kind::Tuple) return err("malformed header: 'shape' is not a tuple");

  std::vector<int64_t> sizes;
  int64_t numel = 1, span = 1;  // span: the product of max(size, 1), which strides must not overflow
  bool overflow = false;
  for (const PyValue& d : shape_v->items) {
    if (d.kind != PyValue::Kind::Int || d.num < 0)
      return err("malformed header: shape ", descr_text(*shape_v), " has an entry that is not a size");
    sizes.push_back(d.num);
    overflow = overflow || __builtin_mul_overflow(numel, d.num, &numel);
    if (__builtin_mul_overflow(span, std::max<int64_t>(d.num, 1), &span))
      return err("malformed header: shape ", descr_text(*shape_v), " is too large");
  }
  DType dtype = descr->dtype;
  int64_t elem = dtype_size(dtype);
  int64_t need = 0;
  overflow = overflow || __builtin_mul_overflow(numel, elem, &need);
  size_t have = bytes.size() - prefix - header_len;
  if (overflow || static_cast<uint64_t>(need) != have)
    return err("data size mismatch: shape ", shape_text(sizes), " of ", descr_text(*descr_v), " needs ",
               overflow ? std::string("more than 2^63") : std::to_string(need), " bytes, the file has ", have);

  // The elements as stored: C order over `sizes`, or C order over the reversed sizes.
  std::vector<int64_t> stored_sizes = sizes;
  if (fortran) std::reverse(stored_sizes.begin(), stored_sizes.end());
  Tensor stored;
  try {
    stored = Tensor::empty(stored_sizes, dtype);
  } catch (const Error& e) {  // out of memory
    return err(e.diagnostic().message());
  }
  if (need > 0) std::memcpy(stored.data_bytes(), bytes.data() + prefix + header_len, static_cast<size_t>(need));
  std::byte* out = stored.data_bytes();
  if (descr->swap)
    for (int64_t i = 0; i < numel; ++i) std::reverse(out + i * elem, out + (i + 1) * elem);
  if (dtype == DType::Bool)
    for (int64_t i = 0; i < numel; ++i) out[i] = std::byte{out[i] != std::byte{0}};
  if (!fortran || sizes.size() < 2) return stored;
  // Fortran order: element (i0, i1, ..., ik) is at i0 + s0*i1 + ...: the reversed strides.
  std::vector<int64_t> strides = contiguous_strides(stored_sizes);
  std::reverse(strides.begin(), strides.end());
  return stored.as_strided(sizes, strides, 0).clone();
}

std::string npy_to_bytes(const Tensor& t) {
  if (!t.defined() || t.is_traced()) throw Error(make_error("npy_to_bytes: cannot write a traced or undefined tensor"));
  std::string header = "{'descr': ";
  std::string descr = npy_descr(t.dtype());
  header += descr[0] == '[' ? descr : "'" + descr + "'";
  header += ", 'fortran_order': False, 'shape': " + shape_text(t.sizes()) + ", }";
  // Pad with spaces and a final newline so the data starts at a multiple of kAlign; the
  // length field is 2 bytes (version 1.0) unless the padded header needs 4 (version 2.0).
  auto padded = [&](size_t len_bytes) {
    size_t used = kMagicLen + 2 + len_bytes + header.size() + 1;
    return header.size() + 1 + (kAlign - used % kAlign) % kAlign;
  };
  size_t len_bytes = padded(2) <= 0xffff ? 2 : 4;
  header.append(padded(len_bytes) - header.size() - 1, ' ');
  header += '\n';

  std::string out(kMagic, kMagicLen);
  out += static_cast<char>(len_bytes == 2 ? 1 : 2);
  out += '\0';
  uint64_t hl = header.size();
  for (size_t i = 0; i < len_bytes; ++i) out += static_cast<char>((hl >> (8 * i)) & 0xff);
  out += header;

  Tensor c = t.to(Device::cpu()).contiguous();  // a device tensor's bytes go through the host
  size_t nbytes = static_cast<size_t>(c.numel()) * static_cast<size_t>(dtype_size(c.dtype()));
  if (nbytes > 0) out.append(reinterpret_cast<const char*>(c.data_bytes()), nbytes);
  return out;
}

Expected<Tensor> read_npy(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return make_error(path, ": is a directory, not a .npy file");
  KILN_ASSIGN_OR_RETURN(std::string bytes, read_file_bytes(path));
  return npy_from_bytes(bytes, path);
}

Status write_npy(const std::string& path, const Tensor& t) {
  if (!t.defined() || t.is_traced()) return make_error(path, ": cannot write a traced or undefined tensor");
  return write_file_bytes(path, npy_to_bytes(t));
}

}  // namespace kiln
