// The MLIR text reader: a recursive descent over the lexer's tokens (mlir_lexer.h). A statement
// is one line ("results = name header"), except that a `{` ending a line opens a region, which
// runs to its `}`; after the `}` the statement goes on to the end of that line (`} else {`,
// `}) : (...) -> ... loc(#loc)`).
#include "kernels/mlir_reader.h"

#include <algorithm>
#include <charconv>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "kernels/mlir_lexer.h"

namespace kiln::kernels {
namespace {

constexpr int kMaxRegionDepth = 128;   // deeper nesting is an error, not a stack overflow
constexpr int kMaxLocDepth = 32;       // loc("a"("b"(...))) nesting
constexpr int64_t kMaxResults = 4096;  // `%x:N` with a larger N is an error
constexpr int kMaxAliasChain = 64;     // #loc1 = loc(#loc2), #loc2 = loc(#loc3), ...

using Tok = MlirTok;
using Token = MlirToken;

// A value name in scope: `%x` is (%x, 0), `%x#1` is (%x, 1).
struct NameKey {
  std::string_view base;
  int32_t number = 0;
  bool operator==(const NameKey& o) const { return number == o.number && base == o.base; }
};
struct NameKeyHash {
  size_t operator()(const NameKey& k) const {
    return std::hash<std::string_view>()(k.base) * 31 + static_cast<size_t>(k.number);
  }
};

NameKey split_use(std::string_view name) {
  size_t hash = name.find('#');
  if (hash == std::string_view::npos) return {name, 0};
  int32_t n = 0;
  std::from_chars(name.data() + hash + 1, name.data() + name.size(), n);
  return {name.substr(0, hash), n};
}

struct Binding {
  MlirValueId id = -1;
  int depth = 0;  // the scope (region nesting) that defined it
};

// Where a new op goes: a block of a region of `op`, or the top level when op == -1.
struct Placement {
  MlirOpId op = -1;
  int region = 0;
  int block = 0;
};

// What a `loc(...)` says: its names, outermost first (loc("a"("in0"(#loc))) names a value "a"
// that was "in0" before), its "file:line:col", and the #alias that says the rest.
struct LocInfo {
  std::vector<std::string> names;
  std::string source;
  size_t alias_token = 0;  // the alias's token; 0: none
};

// A value defined in an op's header (`%iv = `, `%arg0: type loc(...)`): an entry-block argument
// of the region that follows it, created when that region opens.
struct HeaderDef {
  size_t token = 0;
  std::string type;
  LocInfo loc;
};

// The state of one statement's header while its tokens are read.
struct Statement {
  MlirOpId op = -1;
  int line = 0;                // the line the statement continues on
  std::vector<size_t> open;    // token indices of unclosed '(' and '['
  size_t successor_group = 0;  // open.size() inside a `^bb(...)` operand list, else 0
  bool after_caret = false;
  bool keyword_open = true;  // no token read yet after the name
  std::vector<HeaderDef> defs;
  int typed_def = -1;  // index into defs whose type / loc is being read
  size_t type_begin = 0, type_end = 0;
  bool in_type = false;
};

// A location whose #alias is resolved once the whole text (aliases come last) is read.
struct PendingLoc {
  bool is_op = true;
  int32_t id = 0;
  LocInfo loc;
};

class Reader {
 public:
  Reader(std::string_view text, std::string_view file, std::vector<Token> tokens)
      : text_(text), file_(file), toks_(std::move(tokens)) {}

  Expected<MlirModule> run() {
    size_t lines = static_cast<size_t>(toks_.back().line);  // about one op a line
    ops_.reserve(lines);
    values_.reserve(lines + lines / 2);
    while (cur().kind != Tok::Eof) {
      if ((cur().kind == Tok::Hash || cur().kind == Tok::Bang) && is_punct(tok(pos_ + 1), '=')) {
        KILN_TRY(parse_alias());
      } else if (is_punct(cur(), '}')) {
        return error_at(cur(), "unexpected '}'");
      } else {
        KILN_TRY(parse_statement(Placement{}, 0));
        KILN_TRY(check_forward_refs());
      }
    }
    KILN_TRY(resolve_locations());
    MlirModule m;
    m.file = std::string(file_);
    m.ops = std::move(ops_);
    m.values = std::move(values_);
    m.top_level = std::move(top_level_);
    return m;
  }

 private:
  // Tokens.
  const Token& tok(size_t i) const { return toks_[std::min(i, toks_.size() - 1)]; }
  const Token& cur() const { return tok(pos_); }
  std::string_view text(const Token& t) const { return text_.substr(t.begin, t.end - t.begin); }
  std::string_view span(size_t begin, size_t end) const { return text_.substr(begin, end - begin); }
  bool is_punct(const Token& t, char c) const { return t.kind == Tok::Punct && text_[t.begin] == c; }
  bool is_word(const Token& t, std::string_view w) const { return t.kind == Tok::Ident && text(t) == w; }
  bool is_loc_start(size_t i) const { return is_word(tok(i), "loc") && is_punct(tok(i + 1), '('); }
  bool last_on_line(size_t i) const { return tok(i + 1).kind == Tok::Eof || tok(i + 1).line != tok(i).line; }
  SourceLoc where(const Token& t) const { return SourceLoc{std::string(file_), t.line, t.col}; }
  Diagnostic error_at(const Token& t, const std::string& msg) const { return make_error(msg).with_loc(where(t)); }

  // The index of the token that closes the '(' '[' or '{' at `open`.
  Expected<size_t> match_close(size_t open) const {
    std::vector<char> want;
    for (size_t i = open; tok(i).kind != Tok::Eof; ++i) {
      const Token& t = tok(i);
      if (t.kind != Tok::Punct) continue;
      char c = text_[t.begin];
      if (c == '(')
        want.push_back(')');
      else if (c == '[')
        want.push_back(']');
      else if (c == '{')
        want.push_back('}');
      else if (c == ')' || c == ']' || c == '}') {
        if (want.empty() || want.back() != c) return error_at(t, std::string("unexpected '") + c + "'");
        want.pop_back();
        if (want.empty()) return i;
      }
    }
    return error_at(tok(open), std::string("no closing bracket for this '") + text_[tok(open).begin] + "'");
  }

  // Scopes: one per region; a name resolves to its innermost definition.
  void push_scope() { scope_marks_.push_back(undo_.size()); }
  void pop_scope() {
    size_t mark = scope_marks_.back();
    scope_marks_.pop_back();
    while (undo_.size() > mark) {
      auto& [key, previous] = undo_.back();
      if (previous)
        bindings_[key] = *previous;
      else
        bindings_.erase(key);
      undo_.pop_back();
    }
  }
  int depth() const { return static_cast<int>(scope_marks_.size()); }

  // Defines `key` in the innermost scope as a new value (or as the value that earlier uses of
  // the name already refer to).
  Expected<MlirValueId> define(NameKey key, MlirValue v, const Token& at) {
    auto it = bindings_.find(key);
    if (it != bindings_.end() && it->second.depth == depth())
      return error_at(at, "redefinition of value '" + v.name + "'");
    MlirValueId id = static_cast<MlirValueId>(values_.size());
    if (auto p = pending_.find(key); p != pending_.end()) {
      id = p->second.first;
      values_[static_cast<size_t>(id)] = std::move(v);
      pending_.erase(p);
    } else {
      values_.push_back(std::move(v));
    }
    undo_.emplace_back(key, it == bindings_.end() ? std::nullopt : std::optional<Binding>(it->second));
    bindings_[key] = Binding{id, depth()};
    return id;
  }

  // A use: the innermost definition, or a placeholder that a later definition fills in.
  MlirValueId use(size_t index) {
    const Token& t = tok(index);
    NameKey key = split_use(text(t));
    if (auto it = bindings_.find(key); it != bindings_.end()) return it->second.id;
    if (auto p = pending_.find(key); p != pending_.end()) return p->second.first;
    MlirValueId id = static_cast<MlirValueId>(values_.size());
    values_.push_back(MlirValue{std::string(text(t)), "", {}, -1, -1, -1, 0});
    pending_.emplace(key, std::make_pair(id, index));
    return id;
  }

  // Every use must be defined by the end of the function (or top-level op) that holds it.
  Status check_forward_refs() {
    if (pending_.empty()) return Status::ok();
    size_t first = toks_.size();
    for (const auto& [key, entry] : pending_) first = std::min(first, entry.second);
    return error_at(tok(first), "use of undefined value '" + std::string(text(tok(first))) + "'");
  }

  MlirOpId new_op(const Placement& at, const Token& start) {
    MlirOpId id = static_cast<MlirOpId>(ops_.size());
    ops_.emplace_back();
    ops_.back().loc = where(start);
    ops_.back().parent = at.op;
    if (at.op < 0)
      top_level_.push_back(id);
    else
      ops_[static_cast<size_t>(at.op)]
          .regions[static_cast<size_t>(at.region)]
          .blocks[static_cast<size_t>(at.block)]
          .ops.push_back(id);
    return id;
  }

  Status parse_alias();
  Status parse_statement(const Placement& at, int depth);
  Status parse_result_list(std::vector<std::pair<size_t, int64_t>>& results);
  Status bind_results(MlirOpId op, const std::vector<std::pair<size_t, int64_t>>& results);
  Status parse_header(Statement& s, int depth);
  Status parse_header_token(Statement& s, int depth);
  Status parse_header_punct(Statement& s, int depth);
  Status parse_header_value(Statement& s);
  Status parse_header_loc(Statement& s);
  void read_def_type(HeaderDef& def);
  Status parse_region(MlirOpId op, std::vector<HeaderDef> entry, size_t open_token, int depth);
  Status parse_block_label(MlirOpId op, int region);
  Status add_block_arg(MlirOpId op, int region, int block, const HeaderDef& def);
  Status parse_attributes(size_t open, std::vector<MlirAttribute>* out);
  Status parse_loc(LocInfo& out);
  Status parse_loc_body(size_t& i, size_t end, LocInfo& out, int depth);
  Status resolve_locations();
  void note_type_token(Statement& s, const Token& t) {
    if (s.in_type) s.type_end = t.end;
  }

  std::string_view text_;
  std::string_view file_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  std::vector<MlirOp> ops_;
  std::vector<MlirValue> values_;
  std::vector<MlirOpId> top_level_;
  std::unordered_map<NameKey, Binding, NameKeyHash> bindings_;
  std::vector<std::pair<NameKey, std::optional<Binding>>> undo_;
  std::vector<size_t> scope_marks_;
  std::unordered_map<NameKey, std::pair<MlirValueId, size_t>, NameKeyHash> pending_;  // -> (id, token)
  std::unordered_map<std::string_view, LocInfo> aliases_;                             // "#loc3" -> its location
  std::unordered_set<std::string_view> other_aliases_;                                // "#blocked", "!ty"
  std::vector<size_t> alias_uses_;                                                    // #alias tokens inside loc(...)
  std::vector<PendingLoc> pending_locs_;
};

// `#loc3 = loc(...)` (kept) or any other `#name = ...` / `!name = ...` alias (skipped).
Status Reader::parse_alias() {
  const Token& name = cur();
  pos_ += 2;
  if (is_loc_start(pos_)) {
    LocInfo info;
    KILN_TRY(parse_loc(info));
    aliases_[text(name)] = std::move(info);
  } else {
    other_aliases_.insert(text(name));
  }
  while (cur().kind != Tok::Eof && cur().line == name.line) ++pos_;
  return Status::ok();
}

Status Reader::parse_statement(const Placement& at, int depth) {
  const Token& start = cur();
  std::vector<std::pair<size_t, int64_t>> results;  // (token, count) per result group
  if (start.kind == Tok::Value) KILN_TRY(parse_result_list(results));
  const Token& name = cur();
  if (name.kind != Tok::Ident && name.kind != Tok::String)
    return error_at(name, "expected an operation name, found '" + std::string(text(name)) + "'");
  MlirOpId op = new_op(at, start);
  ops_[static_cast<size_t>(op)].generic = name.kind == Tok::String;
  ops_[static_cast<size_t>(op)].name = mlir_unquote(text(name));
  ++pos_;
  Statement s;
  s.op = op;
  s.line = name.line;
  KILN_TRY(parse_header(s, depth));
  MlirOp& o = ops_[static_cast<size_t>(op)];
  if (s.type_end > s.type_begin) o.type_text = std::string(span(s.type_begin, s.type_end));
  KILN_TRY(bind_results(op, results));
  const std::string& n = ops_[static_cast<size_t>(op)].name;
  if (n.size() >= 4 && n.compare(n.size() - 4, 4, "func") == 0) KILN_TRY(check_forward_refs());
  return Status::ok();
}

// `%a, %b =` or `%x:2 =`.
Status Reader::parse_result_list(std::vector<std::pair<size_t, int64_t>>& results) {
  while (true) {
    const Token& t = cur();
    if (t.kind != Tok::Value) return error_at(t, "expected a result name, found '" + std::string(text(t)) + "'");
    if (text(t).find('#') != std::string_view::npos) return error_at(t, "a result name cannot have a '#' number");
    size_t name_tok = pos_++;
    int64_t count = 1;
    if (is_punct(cur(), ':')) {
      const Token& n = tok(pos_ + 1);
      auto r = std::from_chars(text_.data() + n.begin, text_.data() + n.end, count);
      if (n.kind != Tok::Number || r.ec != std::errc() || r.ptr != text_.data() + n.end || count < 1 ||
          count > kMaxResults)
        return error_at(n, "expected a result count (1 to " + std::to_string(kMaxResults) + ") after ':'");
      pos_ += 2;
      count = -count;  // negative: written with an explicit count, so results are named %x#i
    }
    results.emplace_back(name_tok, count);
    if (!is_punct(cur(), ',')) break;
    ++pos_;
  }
  if (!is_punct(cur(), '=')) return error_at(cur(), "expected '=' after the result list");
  ++pos_;
  return Status::ok();
}

Status Reader::bind_results(MlirOpId op, const std::vector<std::pair<size_t, int64_t>>& results) {
  int index = 0;
  for (const auto& [name_tok, count] : results) {
    const Token& t = tok(name_tok);
    std::string_view base = text(t);
    int64_t n = count < 0 ? -count : count;
    for (int64_t k = 0; k < n; ++k) {
      std::string name = count < 0 ? std::string(base) + "#" + std::to_string(k) : std::string(base);
      MlirValue v{std::move(name), "", {}, op, -1, -1, index++};
      KILN_ASSIGN_OR_RETURN(MlirValueId id, define(NameKey{base, static_cast<int32_t>(k)}, std::move(v), t));
      ops_[static_cast<size_t>(op)].results.push_back(id);
    }
  }
  return Status::ok();
}

// The tokens after the op name, up to the end of the statement's (last) line.
Status Reader::parse_header(Statement& s, int depth) {
  while (true) {
    const Token& t = cur();
    if (t.kind == Tok::Eof || t.line != s.line || is_punct(t, '}')) {
      if (!s.open.empty()) return error_at(tok(s.open.back()), "this bracket is not closed on its line");
      return Status::ok();
    }
    KILN_TRY(parse_header_token(s, depth));
  }
}

Status Reader::parse_header_token(Statement& s, int depth) {
  const Token& t = cur();
  bool keyword = s.keyword_open;
  s.keyword_open = false;
  MlirOp& op = ops_[static_cast<size_t>(s.op)];
  switch (t.kind) {
    case Tok::Value: return parse_header_value(s);
    case Tok::Punct: return parse_header_punct(s, depth);
    case Tok::Ident:
      if (is_loc_start(pos_)) return parse_header_loc(s);
      if (keyword) op.keyword = std::string(text(t));
      break;
    case Tok::At:
      if (op.symbol.empty()) op.symbol = mlir_unquote(text(t).substr(1));
      break;
    case Tok::Caret: s.after_caret = true; break;
    default: break;
  }
  note_type_token(s, t);
  ++pos_;
  return Status::ok();
}

Status Reader::parse_header_punct(Statement& s, int depth) {
  const Token& t = cur();
  char c = text_[t.begin];
  if (c == '{') {
    if (last_on_line(pos_)) {  // a region
      size_t open = pos_++;
      std::vector<HeaderDef> entry = std::move(s.defs);
      s.defs.clear();
      s.typed_def = -1;
      KILN_TRY(parse_region(s.op, std::move(entry), open, depth + 1));
      s.line = tok(pos_ - 1).line;
      return Status::ok();
    }
    // An attribute dictionary; one that follows a header definition belongs to the argument.
    return parse_attributes(pos_, s.typed_def >= 0 ? nullptr : &ops_[static_cast<size_t>(s.op)].attributes);
  }
  if (c == '(' || c == '[') {
    s.open.push_back(pos_);
    if (c == '(' && s.after_caret) s.successor_group = s.open.size();
  } else if (c == ')' || c == ']') {
    if (s.open.empty() || text_[tok(s.open.back()).begin] != (c == ')' ? '(' : '['))
      return error_at(t, std::string("unexpected '") + c + "'");
    if (s.successor_group == s.open.size()) s.successor_group = 0;
    s.open.pop_back();
    s.typed_def = -1;
  } else if (c == ',') {
    s.typed_def = -1;
  } else if (c == ':' && s.open.empty() && !s.in_type) {
    s.in_type = true;
    s.type_begin = s.type_end = tok(pos_ + 1).begin;
    ++pos_;
    return Status::ok();
  }
  if (c != '(' && c != '[') s.after_caret = false;
  note_type_token(s, t);
  ++pos_;
  return Status::ok();
}

// A `%name` in the header: a definition when `=` follows it, or `:` inside parentheses
// (`tt.func @f(%arg0: type)`, `iter_args(%a = %init)`, `scf.for %iv = ...`); else a use.
Status Reader::parse_header_value(Statement& s) {
  const Token& t = cur();
  const Token& next = tok(pos_ + 1);
  bool in_parens = !s.open.empty() && s.successor_group == 0;
  bool is_def = is_punct(next, '=') || (in_parens && is_punct(next, ':'));
  if (!is_def) {
    ops_[static_cast<size_t>(s.op)].operands.push_back(use(pos_));
    note_type_token(s, t);
    ++pos_;
    return Status::ok();
  }
  if (text(t).find('#') != std::string_view::npos) return error_at(t, "a definition cannot have a '#' number");
  HeaderDef def;
  def.token = pos_++;
  s.typed_def = -1;
  if (is_punct(cur(), ':')) {
    ++pos_;
    read_def_type(def);
    s.typed_def = static_cast<int>(s.defs.size());
  }
  s.defs.push_back(std::move(def));
  return Status::ok();
}

// The type after `%name:` runs to the next ',' or ')' at its depth, a `loc(` or a '{'.
void Reader::read_def_type(HeaderDef& def) {
  int line = cur().line;
  int nested = 0;
  size_t begin = cur().begin, end = begin;
  while (cur().kind != Tok::Eof && cur().line == line) {
    const Token& t = cur();
    if (nested == 0 && (is_punct(t, ',') || is_punct(t, ')'))) break;
    if (is_loc_start(pos_) || is_punct(t, '{') || is_punct(t, '}')) break;
    if (is_punct(t, '(')) ++nested;
    if (is_punct(t, ')')) --nested;
    end = t.end;
    ++pos_;
  }
  def.type = std::string(span(begin, end));
}

// `loc(...)`: outside parentheses it locates the op; after a header definition, the argument.
Status Reader::parse_header_loc(Statement& s) {
  LocInfo info;
  KILN_TRY(parse_loc(info));
  if (s.typed_def >= 0)
    s.defs[static_cast<size_t>(s.typed_def)].loc = std::move(info);
  else if (s.open.empty())
    pending_locs_.push_back(PendingLoc{true, s.op, std::move(info)});
  return Status::ok();
}

// The region's body up to its '}'; `entry` are the values its op's header defined.
Status Reader::parse_region(MlirOpId op, std::vector<HeaderDef> entry, size_t open_token, int depth) {
  if (depth > kMaxRegionDepth) return error_at(tok(open_token), "regions nested too deeply");
  int region = static_cast<int>(ops_[static_cast<size_t>(op)].regions.size());
  ops_[static_cast<size_t>(op)].regions.emplace_back();
  push_scope();
  auto blocks = [&]() -> std::vector<MlirBlock>& {
    return ops_[static_cast<size_t>(op)].regions[static_cast<size_t>(region)].blocks;
  };
  if (!entry.empty()) {
    blocks().emplace_back();
    for (const HeaderDef& def : entry) KILN_TRY(add_block_arg(op, region, 0, def));
  }
  while (true) {
    const Token& t = cur();
    if (t.kind == Tok::Eof) return error_at(tok(open_token), "unterminated region: no '}' closes this '{'");
    if (is_punct(t, '}')) break;
    if (t.kind == Tok::Caret) {
      KILN_TRY(parse_block_label(op, region));
      continue;
    }
    if (blocks().empty()) blocks().emplace_back();
    Placement at{op, region, static_cast<int>(blocks().size()) - 1};
    KILN_TRY(parse_statement(at, depth));
  }
  ++pos_;
  pop_scope();
  return Status::ok();
}

// `^bb0(%a: f32 loc(...), %b: f32):` starts a block (or names the entry block).
Status Reader::parse_block_label(MlirOpId op, int region) {
  const Token& label = cur();
  ++pos_;
  std::vector<HeaderDef> args;
  if (is_punct(cur(), '(')) {
    ++pos_;
    while (!is_punct(cur(), ')')) {
      if (cur().kind != Tok::Value || !is_punct(tok(pos_ + 1), ':'))
        return error_at(cur(), "expected a block argument '%name: type'");
      HeaderDef def;
      def.token = pos_;
      pos_ += 2;
      read_def_type(def);
      if (is_loc_start(pos_)) KILN_TRY(parse_loc(def.loc));
      args.push_back(std::move(def));
      if (is_punct(cur(), ','))
        ++pos_;
      else if (!is_punct(cur(), ')'))
        return error_at(cur(), "expected ',' or ')' in the block arguments");
    }
    ++pos_;
  }
  if (!is_punct(cur(), ':')) return error_at(cur(), "expected ':' after the block label");
  ++pos_;
  std::vector<MlirBlock>& blocks = ops_[static_cast<size_t>(op)].regions[static_cast<size_t>(region)].blocks;
  bool names_entry = blocks.size() == 1 && blocks[0].label.empty() && blocks[0].ops.empty();
  if (!names_entry) blocks.emplace_back();
  int block = static_cast<int>(blocks.size()) - 1;
  blocks.back().label = std::string(text(label));
  for (const HeaderDef& def : args) KILN_TRY(add_block_arg(op, region, block, def));
  return Status::ok();
}

Status Reader::add_block_arg(MlirOpId op, int region, int block, const HeaderDef& def) {
  MlirBlock& b = ops_[static_cast<size_t>(op)].regions[static_cast<size_t>(region)].blocks[static_cast<size_t>(block)];
  const Token& t = tok(def.token);
  MlirValue v{std::string(text(t)), def.type, {}, op, region, block, static_cast<int>(b.args.size())};
  KILN_ASSIGN_OR_RETURN(MlirValueId id, define(NameKey{text(t), 0}, std::move(v), t));
  ops_[static_cast<size_t>(op)].regions[static_cast<size_t>(region)].blocks[static_cast<size_t>(block)].args.push_back(
      id);
  if (!def.loc.names.empty() || def.loc.alias_token) pending_locs_.push_back(PendingLoc{false, id, def.loc});
  return Status::ok();
}

// `{key = value, unit_key, "quoted.key" = value}` starting at `open`; nullptr `out` skips it.
Status Reader::parse_attributes(size_t open, std::vector<MlirAttribute>* out) {
  KILN_ASSIGN_OR_RETURN(size_t close, match_close(open));
  size_t i = open + 1;
  while (i < close) {
    const Token& key = tok(i);
    if (key.kind != Tok::Ident && key.kind != Tok::String && key.kind != Tok::Bang)
      return error_at(key, "expected an attribute name, found '" + std::string(text(key)) + "'");
    MlirAttribute attr;
    attr.key = mlir_unquote(text(key));
    ++i;
    if (is_punct(tok(i), '=')) {
      size_t first = ++i;
      int nested = 0;
      for (; i < close; ++i) {
        const Token& t = tok(i);
        if (nested == 0 && is_punct(t, ',')) break;
        if (is_punct(t, '(') || is_punct(t, '[') || is_punct(t, '{') || is_punct(t, '<')) ++nested;
        if (is_punct(t, ')') || is_punct(t, ']') || is_punct(t, '}') || is_punct(t, '>')) --nested;
      }
      if (i == first) return error_at(tok(i), "expected an attribute value after '='");
      attr.value = std::string(span(tok(first).begin, tok(i - 1).end));
    }
    if (i < close && !is_punct(tok(i), ',')) return error_at(tok(i), "expected ',' or '}' in the attributes");
    if (i < close) ++i;
    if (out) out->push_back(std::move(attr));
  }
  pos_ = close + 1;
  return Status::ok();
}

// `loc(...)` at pos_: the name, the source "file:line:col" and the #alias it refers to.
Status Reader::parse_loc(LocInfo& out) {
  size_t open = pos_ + 1;
  KILN_ASSIGN_OR_RETURN(size_t close, match_close(open));
  for (size_t i = open + 1; i < close; ++i)
    if (tok(i).kind == Tok::Hash) alias_uses_.push_back(i);
  size_t i = open + 1;
  KILN_TRY(parse_loc_body(i, close, out, 0));
  pos_ = close + 1;
  return Status::ok();
}

// One location: #alias | unknown | "file":line:col | "name" | "name"(loc) | callsite(loc at loc)
// | fused[loc, ...] | fused<...>[loc, ...]. What it cannot read it skips (locations only name).
Status Reader::parse_loc_body(size_t& i, size_t end, LocInfo& out, int depth) {
  if (depth > kMaxLocDepth) return error_at(tok(i), "location nested too deeply");
  if (i >= end) return Status::ok();
  const Token& t = tok(i);
  if (t.kind == Tok::Hash) {
    out.alias_token = i++;
  } else if (t.kind == Tok::String && is_punct(tok(i + 1), ':') && tok(i + 2).kind == Tok::Number &&
             is_punct(tok(i + 3), ':') && tok(i + 4).kind == Tok::Number && i + 4 < end) {
    out.source = mlir_unquote(text(t)) + ":" + std::string(text(tok(i + 2))) + ":" + std::string(text(tok(i + 4)));
    i += 5;
  } else if (t.kind == Tok::String) {
    out.names.push_back(mlir_unquote(text(t)));
    ++i;
    if (i < end && is_punct(tok(i), '(')) {
      KILN_ASSIGN_OR_RETURN(size_t close, match_close(i));
      size_t j = i + 1;
      KILN_TRY(parse_loc_body(j, close, out, depth + 1));
      i = close + 1;
    }
  } else if ((is_word(t, "callsite") || is_word(t, "fused")) && i + 1 < end) {
    size_t j = i + 1;
    if (is_punct(tok(j), '<')) {  // fused<metadata>[...]
      while (j < end && !is_punct(tok(j), '[')) ++j;
    }
    if (j < end && (is_punct(tok(j), '(') || is_punct(tok(j), '['))) {
      KILN_ASSIGN_OR_RETURN(size_t close, match_close(j));
      size_t k = j + 1;
      KILN_TRY(parse_loc_body(k, close, out, depth + 1));  // the callee / the first location
      i = close + 1;
    } else {
      i = end;
    }
  } else {
    i = end;
  }
  return Status::ok();
}

// Checks every #alias that a location names, then fills in the names and sources that ops and
// block arguments take from their aliases (which may refer to further aliases).
Status Reader::resolve_locations() {
  for (size_t i : alias_uses_) {
    std::string_view name = text(tok(i));
    if (!aliases_.count(name) && !other_aliases_.count(name))
      return error_at(tok(i), "unknown location alias '" + std::string(name) + "'");
  }
  for (PendingLoc& p : pending_locs_) {
    LocInfo& loc = p.loc;
    size_t alias = loc.alias_token;
    for (int step = 0; alias != 0 && step < kMaxAliasChain; ++step) {
      auto it = aliases_.find(text(tok(alias)));
      if (it == aliases_.end()) break;
      loc.names.insert(loc.names.end(), it->second.names.begin(), it->second.names.end());
      if (loc.source.empty()) loc.source = it->second.source;
      alias = it->second.alias_token;
    }
    if (p.is_op) {
      MlirOp& op = ops_[static_cast<size_t>(p.id)];
      if (!loc.names.empty()) op.loc_name = std::move(loc.names.front());
      op.source = std::move(loc.source);
    } else {
      values_[static_cast<size_t>(p.id)].loc_names = std::move(loc.names);
    }
  }
  return Status::ok();
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::optional<bool> MlirAttribute::as_bool() const {
  std::string_view v = trim(value);
  if (v.empty() || v == "true") return true;
  if (v == "false") return false;
  return std::nullopt;
}

std::optional<int64_t> MlirAttribute::as_int() const {
  std::string_view v = trim(value);
  int64_t n = 0;
  auto r = std::from_chars(v.data(), v.data() + v.size(), n);
  if (r.ec != std::errc() || r.ptr == v.data()) return std::nullopt;
  std::string_view rest = trim(v.substr(static_cast<size_t>(r.ptr - v.data())));
  if (!rest.empty() && rest.front() != ':') return std::nullopt;
  return n;
}

std::optional<std::string> MlirAttribute::as_string() const {
  std::string_view v = trim(value);
  if (v.size() < 2 || v.front() != '"' || v.back() != '"') return std::nullopt;
  return mlir_decode_string(v.substr(1, v.size() - 2));
}

std::optional<std::string> MlirAttribute::as_symbol() const {
  std::string_view v = trim(value);
  if (v.size() < 2 || v.front() != '@') return std::nullopt;
  return mlir_unquote(v.substr(1));
}

const MlirAttribute* MlirOp::attribute(std::string_view key) const {
  for (const MlirAttribute& a : attributes)
    if (a.key == key) return &a;
  return nullptr;
}

Expected<MlirModule> read_mlir(std::string_view text, std::string_view file_name) {
  KILN_ASSIGN_OR_RETURN(std::vector<Token> tokens, lex_mlir(text, file_name));
  return Reader(text, file_name, std::move(tokens)).run();
}

}  // namespace kiln::kernels
