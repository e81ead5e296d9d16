// The loop IR's parser (loop_text.h's parse_loops), shared by the files that parse its parts:
// loop_parser.cc (programs, buffers, kernels, loops, control kernels) and loop_parser_body.cc
// (body ops, index expressions, literals and attributes). Uses the graph IR's lexer; every
// error is a Diagnostic at file:line:col. Internal to src/lower: nothing outside includes it.
#pragma once

#include <charconv>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/lexer.h"
#include "lower/loop_ir.h"
#include "support/diagnostic.h"
#include "support/nesting_limit.h"

namespace kiln::loop_parsing {

// a * b modulo 2^64, as IndexExpr's arithmetic (a coefficient times a sign must not overflow).
inline int64_t wrapping_mul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

// Whether a layout's element count and extent, in bytes of the widest dtype, fit in int64
// (sizes and strides already checked non-negative).
bool layout_fits(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides);

// Control kernels nest as deeply as the graph IR's subgraphs may (ir/parser.cc); loops and
// index expressions up to kMaxTextNesting.
inline constexpr int kMaxRegionNesting = 64;

struct PendingName {
  std::string name;
  Token tok;
};

class LoopParser {
 public:
  LoopParser(std::string_view text, std::string_view file) : lex_(text), file_(file) { bump(); }

  Expected<LoopProgram> run();                   // one program, then end of file
  Expected<std::vector<LoopProgram>> run_all();  // programs until end of file
  Expected<LoopProgram> program();

 private:
  // ---- tokens ----
  void bump() { tok_ = lex_.next(); }
  bool at(TokenKind k) const { return tok_.kind == k; }
  bool at_ident(std::string_view w) const { return at(TokenKind::Ident) && tok_.text == w; }
  SourceLoc loc(const Token& t) const { return SourceLoc{file_, t.line, t.col}; }
  template <typename... Args>
  Diagnostic error_at(const Token& t, Args&&... args) const {
    if (t.kind == TokenKind::Error) return Diagnostic(t.text, loc(t));
    return make_error(std::forward<Args>(args)...).with_loc(loc(t));
  }
  std::string describe(const Token& t) const {
    if (t.kind == TokenKind::Eof) return "end of file";
    if (t.kind == TokenKind::ValueName) return "'%" + t.text + "'";
    if (t.kind == TokenKind::GraphName) return "'@" + t.text + "'";
    return "'" + t.text + "'";
  }
  Status expect(TokenKind k, std::string_view what) {
    if (!at(k)) return error_at(tok_, "expected ", what, ", got ", describe(tok_));
    bump();
    return Status::ok();
  }
  Status expect_word(std::string_view w) {
    if (!at_ident(w)) return error_at(tok_, "expected '", w, "', got ", describe(tok_));
    bump();
    return Status::ok();
  }
  Expected<int64_t> integer() {
    if (!at(TokenKind::Integer)) return error_at(tok_, "expected an integer, got ", describe(tok_));
    int64_t v = 0;
    const std::string& s = tok_.text;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size()) return error_at(tok_, "integer '", s, "' out of range");
    bump();
    return v;
  }
  Expected<uint64_t> unsigned_integer() {
    if (!at(TokenKind::Integer)) return error_at(tok_, "expected an unsigned integer, got ", describe(tok_));
    uint64_t v = 0;
    const std::string& s = tok_.text;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size()) return error_at(tok_, "integer '", s, "' out of range");
    bump();
    return v;
  }
  Expected<std::vector<int64_t>> int_list();
  Status random_op(const LoopKernel& k, BodyOp& op);
  Expected<std::pair<DType, std::vector<int64_t>>> buffer_type();
  Expected<DType> dtype();
  Expected<Scalar> literal();
  Expected<AttrValue> attr_value();
  Expected<AttrMap> attrs(OpKind op);
  Status compute_attrs(BodyOp& op);
  // The indirect terms (value, coefficient) an access index names, in order.
  struct IndirectTerms {
    const LoopKernel* kernel;
    std::vector<std::pair<int, int64_t>> terms;
  };
  Expected<IndexExpr> index_expr(int num_vars, IndirectTerms* values = nullptr);
  Expected<IndexExpr> index_term(int num_vars, IndirectTerms* values, int64_t sign);
  Status access_index(const LoopKernel& k, int depth, BodyOp& op, std::vector<int>& values);
  Expected<int> buffer_ref();

  // ---- structure ----
  Status buffer_decl();
  Status kernel(std::vector<LoopKernel>& into);
  Status control_kernel(LoopKernel& k, const Token& name_tok);
  Status region(std::vector<LoopKernel>& into);
  Expected<std::vector<int>> buffer_list();
  Status extern_kernel(LoopKernel& k);
  Status block(LoopKernel& k, int depth, bool in_reduce);
  Status fused_block(LoopKernel& k, int depth);
  Expected<int64_t> loop_head(int depth);
  Status body_op(LoopKernel& k, int depth, bool in_reduce, bool after_reduce_loop);
  Status load_mask(const LoopKernel& k, BodyOp& op);
  Status indirect(const LoopKernel& k, BodyOp& op);
  // A value name; `reduce_operand`: an operand of a reduce op, which must be a value of the
  // reduce loops (the other ops after them may use only the reduce ops' results and later ones).
  Expected<int> value_ref(const LoopKernel& k, bool reduce_operand = false);

  Lexer lex_;
  std::string file_;
  Token tok_;
  LoopProgram p_;
  std::map<std::string, int> values_;               // body value names of the current kernel
  std::set<std::string> kernel_names_;              // of the program, nested kernels included
  NestingLimit index_nesting_;                      // div(...) and mod(...) in index expressions
  NestingLimit region_nesting_{kMaxRegionNesting};  // control kernels inside control kernels
};

}  // namespace kiln::loop_parsing
