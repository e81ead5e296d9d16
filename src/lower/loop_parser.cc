// Parses the loop IR's text form (loop_text.h): programs, buffers, kernels, loop nests and
// control kernels; the body ops are loop_parser_body.cc's.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "lower/loop_control.h"
#include "lower/loop_parser.h"
#include "lower/loop_text.h"
#include "ops/op_info.h"
#include "ops/schema_check.h"

namespace kiln {

namespace loop_parsing {

// `for i<depth> in range(N)`; returns N.
Expected<int64_t> LoopParser::loop_head(int depth) {
  if (depth >= kMaxTextNesting) return error_at(tok_, "loops nested deeper than ", kMaxTextNesting, " levels");
  bump();  // 'for'
  const std::string var = "i" + std::to_string(depth);
  if (!at(TokenKind::Ident) || tok_.text != var)
    return error_at(tok_, "expected loop variable '", var, "', got ", describe(tok_));
  bump();
  KILN_TRY(expect_word("in"));
  KILN_TRY(expect_word("range"));
  KILN_TRY(expect(TokenKind::LParen, "'('"));
  Token et = tok_;
  KILN_ASSIGN_OR_RETURN(int64_t extent, integer());
  if (extent < 0) return error_at(et, "a loop extent must not be negative");
  KILN_TRY(expect(TokenKind::RParen, "')'"));
  return extent;
}

// The contents of a fused kernel or one of its shared loops up to its '}': one nested shared
// loop, or the parts (each a pointwise or reduction kernel continuing the shared loops).
Status LoopParser::fused_block(LoopKernel& k, int depth) {
  bool saw_loop = false;
  while (!at(TokenKind::RBrace)) {
    if (at(TokenKind::Eof)) return error_at(tok_, "expected '}', got end of file");
    if (at_ident("for")) {
      Token for_tok = tok_;
      if (saw_loop) return error_at(for_tok, "only one loop per level: loops nest, one inside the other");
      if (!k.parts.empty()) return error_at(for_tok, "shared loops of a fused kernel come before its parts");
      saw_loop = true;
      KILN_ASSIGN_OR_RETURN(int64_t extent, loop_head(depth));
      if (at_ident("reduce")) return error_at(tok_, "the shared loops of a fused kernel cannot be reduce loops");
      KILN_TRY(expect(TokenKind::LBrace, "'{'"));
      k.loops.push_back(extent);
      KILN_TRY(fused_block(k, depth + 1));
      KILN_TRY(expect(TokenKind::RBrace, "'}'"));
      continue;
    }
    if (!at_ident("part"))
      return error_at(tok_, "expected 'for', 'part' or '}' in a fused kernel, got ", describe(tok_));
    if (saw_loop) return error_at(tok_, "parts belong in the innermost shared loop");
    bump();
    LoopKernel part;
    Token kind_tok = tok_;
    if (at_ident("pointwise"))
      part.kind = KernelKind::Pointwise;
    else if (at_ident("reduction"))
      part.kind = KernelKind::Reduction;
    else
      return error_at(tok_, "expected 'pointwise' or 'reduction' after 'part', got ", describe(tok_));
    bump();
    KILN_TRY(expect(TokenKind::LBrace, "'{'"));
    part.loops = k.loops;
    values_.clear();
    KILN_TRY(block(part, depth, false));
    if (part.kind == KernelKind::Reduction && part.reduce_op < 0)
      return error_at(kind_tok, "reduction part of @", k.name, " has no reduce loop followed by a 'reduce' op");
    bump();  // '}'
    k.parts.push_back(std::move(part));
  }
  if (!saw_loop && k.parts.empty()) return error_at(tok_, "fused kernel @", k.name, " has no parts");
  return Status::ok();
}

// The contents of a kernel or loop block up to its '}': one nested loop, or body ops.
Status LoopParser::block(LoopKernel& k, int depth, bool in_reduce) {
  bool saw_loop = false, saw_ops = false, after_reduce_loop = false;
  while (!at(TokenKind::RBrace)) {
    if (at(TokenKind::Eof)) return error_at(tok_, "expected '}', got end of file");
    if (at_ident("for")) {
      Token for_tok = tok_;
      if (saw_loop) return error_at(for_tok, "only one loop per level: loops nest, one inside the other");
      if (saw_ops) return error_at(for_tok, "a loop must come before the body ops of its level");
      saw_loop = true;
      KILN_ASSIGN_OR_RETURN(int64_t extent, loop_head(depth));
      const bool reduce = at_ident("reduce");
      if (reduce) {
        if (k.kind != KernelKind::Reduction) return error_at(tok_, "'reduce' loops belong to reduction kernels");
        bump();
      } else if (in_reduce) {
        return error_at(for_tok, "a loop inside a reduce loop must be a reduce loop too");
      }
      KILN_TRY(expect(TokenKind::LBrace, "'{'"));
      k.loops.push_back(extent);
      if (reduce) ++k.num_reduce_loops;
      KILN_TRY(block(k, depth + 1, in_reduce || reduce));
      KILN_TRY(expect(TokenKind::RBrace, "'}'"));
      after_reduce_loop = reduce && !in_reduce;
      continue;
    }
    if (saw_loop && !after_reduce_loop) return error_at(tok_, "body ops belong in the innermost loop");
    saw_ops = true;
    KILN_TRY(body_op(k, depth, in_reduce, after_reduce_loop));
  }
  return Status::ok();
}

Status LoopParser::extern_kernel(LoopKernel& k) {
  Token op_tok = tok_;
  if (!at(TokenKind::Ident)) return error_at(tok_, "expected an op name after 'extern', got ", describe(tok_));
  std::optional<OpKind> kind = op_from_name(tok_.text);
  if (!kind) return error_at(tok_, "unknown op '", tok_.text, "'");
  if (op_info(*kind).has(kHigherOrder))
    return error_at(tok_, "higher-order op '", tok_.text, "' cannot be an extern kernel");
  k.op = *kind;
  bump();
  KILN_TRY(expect(TokenKind::LParen, "'('"));
  while (!at(TokenKind::RParen)) {
    if (!k.operands.empty()) KILN_TRY(expect(TokenKind::Comma, "',' or ')'"));
    ExternOperand o;
    if (at(TokenKind::ValueName)) {
      KILN_ASSIGN_OR_RETURN(o.buffer, buffer_ref());
      const Buffer& b = p_.buffers[static_cast<size_t>(o.buffer)];
      o.sizes = b.sizes;
      o.strides = b.strides;
      if (at_ident("as")) {
        bump();
        KILN_ASSIGN_OR_RETURN(o.sizes, int_list());
        KILN_TRY(expect_word("strides"));
        Token st = tok_;
        KILN_ASSIGN_OR_RETURN(o.strides, int_list());
        if (o.strides.size() != o.sizes.size()) return error_at(st, "strides and sizes differ in rank");
        KILN_TRY(expect_word("offset"));
        KILN_ASSIGN_OR_RETURN(o.offset, integer());
        for (size_t d = 0; d < o.sizes.size(); ++d)
          if (o.sizes[d] < 0 || o.strides[d] < 0)
            return error_at(st, "sizes and strides of a view must not be negative");
        if (!layout_fits(o.sizes, o.strides)) return error_at(st, "the view is too large to address");
        Buffer view{"", BufferKind::Temp, b.dtype, o.sizes, o.strides};
        const int64_t span = view.storage_size();
        if (o.offset < 0 || (span > 0 && o.offset > b.storage_size() - span))
          return error_at(st, "the view lies outside buffer '%", b.name, "'");
      }
    } else {
      KILN_ASSIGN_OR_RETURN(o.literal, literal());
    }
    k.operands.push_back(std::move(o));
  }
  bump();
  if (at(TokenKind::LBrace)) {
    KILN_ASSIGN_OR_RETURN(k.attrs, attrs(k.op));
  }
  KILN_TRY(expect(TokenKind::Arrow, "'->'"));
  KILN_TRY(expect(TokenKind::LParen, "'('"));
  while (!at(TokenKind::RParen)) {
    if (!k.results.empty()) KILN_TRY(expect(TokenKind::Comma, "',' or ')'"));
    KILN_ASSIGN_OR_RETURN(int b, buffer_ref());
    k.results.push_back(b);
  }
  bump();
  if (k.results.empty()) return error_at(op_tok, "extern kernel @", k.name, " writes no buffer");
  return Status::ok();
}

// `(%a, %b)`: buffer names.
Expected<std::vector<int>> LoopParser::buffer_list() {
  KILN_TRY(expect(TokenKind::LParen, "'('"));
  std::vector<int> out;
  while (!at(TokenKind::RParen)) {
    if (!out.empty()) KILN_TRY(expect(TokenKind::Comma, "',' or ')'"));
    KILN_ASSIGN_OR_RETURN(int b, buffer_ref());
    out.push_back(b);
  }
  bump();
  return out;
}

// `{ kernel ... }`: a region of a control kernel.
Status LoopParser::region(std::vector<LoopKernel>& into) {
  NestingLimit::Level level(region_nesting_);
  if (level.too_deep())
    return error_at(tok_, "control kernels nested deeper than ", region_nesting_.max_depth(), " levels");
  KILN_TRY(expect(TokenKind::LBrace, "'{'"));
  while (at_ident("kernel")) KILN_TRY(kernel(into));
  return expect(TokenKind::RBrace, "'kernel' or '}'");
}

// After `kernel @name`: `cond %p { then {...} else {...} }` or
// `while carry (%c...) next (%n...) { cond %q {...} body {...} }` (loop_control.h).
Status LoopParser::control_kernel(LoopKernel& k, const Token& name_tok) {
  const bool is_cond = at_ident("cond");
  k.kind = is_cond ? KernelKind::Cond : KernelKind::While;
  bump();
  if (is_cond) {
    KILN_ASSIGN_OR_RETURN(k.predicate, buffer_ref());
  } else {
    KILN_TRY(expect_word("carry"));
    KILN_ASSIGN_OR_RETURN(k.carried, buffer_list());
    KILN_TRY(expect_word("next"));
    KILN_ASSIGN_OR_RETURN(k.next, buffer_list());
  }
  KILN_TRY(expect(TokenKind::LBrace, "'{'"));
  k.regions.resize(2);
  KILN_TRY(expect_word(is_cond ? "then" : "cond"));
  if (!is_cond) {
    KILN_ASSIGN_OR_RETURN(k.predicate, buffer_ref());
  }
  KILN_TRY(region(k.regions[0]));
  KILN_TRY(expect_word(is_cond ? "else" : "body"));
  KILN_TRY(region(k.regions[1]));
  KILN_TRY(expect(TokenKind::RBrace, "'}'"));
  if (Status s = check_control_kernel(p_, k); !s) return error_at(name_tok, s.error().message());
  return Status::ok();
}

Status LoopParser::kernel(std::vector<LoopKernel>& into) {
  bump();  // 'kernel'
  if (!at(TokenKind::GraphName)) return error_at(tok_, "expected a kernel name '@name', got ", describe(tok_));
  LoopKernel k;
  Token name_tok = tok_;
  k.name = tok_.text;
  if (!kernel_names_.insert(k.name).second) return error_at(tok_, "kernel '@", k.name, "' is defined twice");
  bump();
  values_.clear();
  if (at_ident("extern")) {
    k.kind = KernelKind::Extern;
    bump();
    KILN_TRY(extern_kernel(k));
    into.push_back(std::move(k));
    return Status::ok();
  }
  if (at_ident("cond") || at_ident("while")) {
    KILN_TRY(control_kernel(k, name_tok));
    into.push_back(std::move(k));
    return Status::ok();
  }
  if (at_ident("pointwise")) {
    k.kind = KernelKind::Pointwise;
  } else if (at_ident("reduction")) {
    k.kind = KernelKind::Reduction;
  } else if (at_ident("scan")) {
    k.kind = KernelKind::Scan;
  } else if (at_ident("fused")) {
    k.kind = KernelKind::Fused;
    bump();
    KILN_TRY(expect(TokenKind::LBrace, "'{'"));
    KILN_TRY(fused_block(k, 0));
    bump();  // '}'
    into.push_back(std::move(k));
    return Status::ok();
  } else {
    return error_at(tok_, "expected 'pointwise', 'reduction', 'scan', 'fused', 'extern', 'cond' or 'while', got ",
                    describe(tok_));
  }
  bump();
  KILN_TRY(expect(TokenKind::LBrace, "'{'"));
  KILN_TRY(block(k, 0, false));
  if (k.kind == KernelKind::Reduction && k.reduce_op < 0)
    return error_at(name_tok, "reduction kernel @", k.name, " has no reduce loop followed by a 'reduce' op");
  if (k.kind == KernelKind::Scan && k.loops.empty())
    return error_at(name_tok, "scan kernel @", k.name, " has no loop to scan over");
  bump();  // '}'
  into.push_back(std::move(k));
  return Status::ok();
}

Status LoopParser::buffer_decl() {
  bump();  // 'buffer'
  if (!at(TokenKind::ValueName)) return error_at(tok_, "expected a buffer name '%name', got ", describe(tok_));
  Token name = tok_;
  if (p_.find_buffer(name.text) >= 0) return error_at(name, "buffer '%", name.text, "' is defined twice");
  bump();
  KILN_TRY(expect(TokenKind::Colon, "':'"));
  KILN_ASSIGN_OR_RETURN(auto type, buffer_type());
  KILN_TRY(expect_word("strides"));
  Token st = tok_;
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> strides, int_list());
  if (strides.size() != type.second.size())
    return error_at(st, "buffer '%", name.text, "' has ", type.second.size(), " sizes but ", strides.size(),
                    " strides");
  for (int64_t s : strides)
    if (s < 0) return error_at(st, "strides must not be negative");
  p_.buffers.push_back(Buffer{name.text, BufferKind::Temp, type.first, std::move(type.second), std::move(strides)});
  return Status::ok();
}

Expected<LoopProgram> LoopParser::run() {
  KILN_ASSIGN_OR_RETURN(LoopProgram p, program());
  if (!at(TokenKind::Eof)) return error_at(tok_, "expected end of file after the program, got ", describe(tok_));
  return p;
}

Expected<std::vector<LoopProgram>> LoopParser::run_all() {
  std::vector<LoopProgram> out;
  while (!at(TokenKind::Eof)) {
    KILN_ASSIGN_OR_RETURN(LoopProgram p, program());
    out.push_back(std::move(p));
  }
  return out;
}

Expected<LoopProgram> LoopParser::program() {
  p_ = LoopProgram();
  kernel_names_.clear();
  KILN_TRY(expect_word("loops"));
  if (!at(TokenKind::GraphName)) return error_at(tok_, "expected a program name '@name', got ", describe(tok_));
  p_.name = tok_.text;
  bump();
  KILN_TRY(expect(TokenKind::LParen, "'('"));
  while (!at(TokenKind::RParen)) {
    if (!p_.inputs.empty()) KILN_TRY(expect(TokenKind::Comma, "',' or ')'"));
    if (!at(TokenKind::ValueName)) return error_at(tok_, "expected an input '%name', got ", describe(tok_));
    Token name = tok_;
    if (p_.find_buffer(name.text) >= 0) return error_at(name, "buffer '%", name.text, "' is defined twice");
    bump();
    KILN_TRY(expect(TokenKind::Colon, "':'"));
    KILN_ASSIGN_OR_RETURN(auto type, buffer_type());
    Buffer b{name.text, BufferKind::Input, type.first, type.second, contiguous_strides(type.second)};
    p_.inputs.push_back(static_cast<int>(p_.buffers.size()));
    p_.buffers.push_back(std::move(b));
  }
  bump();
  KILN_TRY(expect(TokenKind::Arrow, "'->'"));
  KILN_TRY(expect(TokenKind::LParen, "'('"));
  std::vector<PendingName> outputs;
  while (!at(TokenKind::RParen)) {
    if (!outputs.empty()) KILN_TRY(expect(TokenKind::Comma, "',' or ')'"));
    if (!at(TokenKind::ValueName)) return error_at(tok_, "expected an output buffer '%name', got ", describe(tok_));
    outputs.push_back({tok_.text, tok_});
    bump();
  }
  bump();
  KILN_TRY(expect(TokenKind::LBrace, "'{'"));
  while (at_ident("buffer")) KILN_TRY(buffer_decl());
  for (const PendingName& o : outputs) {
    int b = p_.find_buffer(o.name);
    if (b < 0) return error_at(o.tok, "output '%", o.name, "' is not a declared buffer");
    Buffer& buf = p_.buffers[static_cast<size_t>(b)];
    if (buf.kind != BufferKind::Temp)
      return error_at(o.tok, "'%", o.name, "' cannot be an output (an input, or listed twice)");
    buf.kind = BufferKind::Output;
    p_.outputs.push_back(b);
  }
  while (at_ident("kernel")) KILN_TRY(kernel(p_.kernels));
  KILN_TRY(expect(TokenKind::RBrace, "'buffer', 'kernel' or '}'"));
  return std::move(p_);
}

}  // namespace loop_parsing

Expected<LoopProgram> parse_loops(std::string_view text, std::string_view filename) {
  return loop_parsing::LoopParser(text, filename).run();
}

Expected<std::vector<LoopProgram>> parse_loop_programs(std::string_view text, std::string_view filename) {
  return loop_parsing::LoopParser(text, filename).run_all();
}

}  // namespace kiln
