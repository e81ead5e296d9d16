// The structural matcher of pattern.h: PatternSet::add checks a pattern, match_at walks
// backward from an anchor binding search nodes to graph nodes and wildcards to values.
#include <algorithm>

#include "ir/printer.h"
#include "ops/commutative.h"
#include "passes/pattern_internal.h"

namespace kiln {

namespace pattern_detail {

OutputSet graph_output_set(const Graph& g) { return OutputSet(g.outputs().begin(), g.outputs().end()); }

std::string node_name(const Node& n) {
  std::string line = print_node(n);
  return line.substr(0, line.find(" = "));
}

namespace {

// A value as it is printed: "%x" for an input, "%3" for a node result.
std::string value_name(const Value& v) {
  if (v.is_input()) return "%" + v.name();
  std::string names = node_name(*v.producer());
  for (int i = 0; i < v.index(); ++i) names = names.substr(names.find(", ") + 2);
  return names.substr(0, names.find(", "));
}

std::string operand_text(const Operand& o) { return o.is_value() ? value_name(*o.value) : o.literal.to_string(); }

bool is_number(const Scalar& s) { return s.is_int() || s.is_float(); }
bool is_number(const AttrValue& v) { return v.is_int() || v.is_float(); }
// The attribute kinds a first, literal-ignoring match does not compare (sizes, dims, scales,
// dtypes). Bools and strings select behaviour, so they always compare.
bool is_ignorable(const AttrValue& v) { return is_number(v) || v.is_ints() || v.is_dtype(); }

struct State {
  std::vector<Node*> nodes;
  std::vector<Value*> wildcards;
  std::vector<FoundLiteral> literals;
  std::vector<std::optional<AttrValue>> scalars;
};

class Walker {
 public:
  Walker(const PatternSet::Entry& entry, std::string* why, int64_t* visits, int* depth)
      : entry_(entry), pattern_(entry.pattern), why_(why), visits_(visits), depth_(depth) {}

  bool match_node(const Node& pn, Node& tn, State& s);
  bool match_outputs(State& s);

  // Records the first failure; `make` builds the message only when someone asked why.
  template <typename F>
  bool fail(F&& make) {
    if (why_ && why_->empty()) *why_ = make();
    return false;
  }
  // Runs `attempt` on a copy of `s`; on success the copy becomes `s`. A failed attempt's
  // reason stays only when `keep_reason`.
  template <typename F>
  bool attempt(State& s, bool keep_reason, F&& try_it) {
    State trial = s;
    const std::string before = why_ ? *why_ : std::string();
    if (try_it(trial)) {
      s = std::move(trial);
      if (why_) *why_ = before;
      return true;
    }
    if (why_ && !keep_reason) *why_ = before;
    return false;
  }

 private:
  bool match_value(const Value& pv, const Operand& to, const Node& tuser, int j, State& s);
  bool match_literal(int node, int i, const Scalar& pl, const Operand& to, const Node& tn, State& s);
  bool match_attrs(int node, const Node& pn, const Node& tn, State& s);
  bool match_operands(const Node& pn, Node& tn, bool swapped, State& s);
  // Binds a literal equal to a scalar parameter's magic value; nullopt when it is none.
  std::optional<bool> bind_scalar(const AttrValue& pattern_value, const AttrValue& found, FoundLiteral site, State& s);

  const PatternSet::Entry& entry_;
  const Pattern& pattern_;
  std::string* why_;
  int64_t* visits_;
  int* depth_;
};

std::optional<bool> Walker::bind_scalar(const AttrValue& pattern_value, const AttrValue& found, FoundLiteral site,
                                        State& s) {
  if (!is_number(pattern_value)) return std::nullopt;
  if (pattern_.scalar_nodes >= 0 && site.node >= pattern_.scalar_nodes) return std::nullopt;
  for (size_t k = 0; k < pattern_.scalar_params.size(); ++k) {
    if (pattern_value.as_float() != pattern_.scalar_params[k].magic) continue;
    const std::string& name = pattern_.scalar_params[k].name;
    if (!is_number(found))
      return fail([&] { return "scalar parameter '" + name + "' needs a number, found " + found.to_string(); });
    if (s.scalars[k] && !(*s.scalars[k] == found))
      return fail([&] {
        return "scalar parameter '" + name + "' is " + s.scalars[k]->to_string() + " and " + found.to_string();
      });
    s.scalars[k] = found;
    site.pattern_value = pattern_value;
    site.value = found;
    s.literals.push_back(std::move(site));
    return true;
  }
  return std::nullopt;
}

bool Walker::match_literal(int node, int i, const Scalar& pl, const Operand& to, const Node& tn, State& s) {
  auto where = [&] { return "operand " + std::to_string(i) + " of " + node_name(tn) + ": "; };
  if (to.is_value() || (pl.is_none() != to.literal.is_none()))
    return fail([&] { return where() + "expected literal " + pl.to_string() + ", found " + operand_text(to); });
  const AttrValue pv = AttrValue::from_scalar(pl), tv = AttrValue::from_scalar(to.literal);
  if (auto bound = bind_scalar(pv, tv, FoundLiteral{.node = node, .operand = i}, s)) return *bound;
  if (pattern_.ignore_literals && is_number(pl) && is_number(to.literal)) {
    s.literals.push_back(FoundLiteral{.node = node, .operand = i, .pattern_value = pv, .value = tv});
    return true;
  }
  if (pl == to.literal) return true;
  return fail([&] { return where() + "expected literal " + pl.to_string() + ", found " + to.literal.to_string(); });
}

bool Walker::match_attrs(int node, const Node& pn, const Node& tn, State& s) {
  for (const ArgSchema* arg : pn.info().schema.attr_args()) {
    const AttrValue* p = pn.attrs().find(arg->name);
    const AttrValue* t = tn.attrs().find(arg->name);
    if (!p && arg->default_value) p = &*arg->default_value;
    if (!t && arg->default_value) t = &*arg->default_value;
    if (!p && !t) continue;
    auto mismatch = [&] {
      return node_name(tn) + ": attribute " + arg->name + ": expected " + (p ? p->to_string() : "none") + ", found " +
             (t ? t->to_string() : "none");
    };
    if (!p || !t) return fail(mismatch);
    if (auto bound = bind_scalar(*p, *t, FoundLiteral{.node = node, .attr = arg->name}, s)) {
      if (!*bound) return false;
      continue;
    }
    const bool same_kind =
        (is_number(*p) && is_number(*t)) || (p->is_ints() && t->is_ints()) || (p->is_dtype() && t->is_dtype());
    if (pattern_.ignore_literals && is_ignorable(*p) && same_kind) {
      s.literals.push_back(FoundLiteral{.node = node, .attr = arg->name, .pattern_value = *p, .value = *t});
      continue;
    }
    if (!(*p == *t)) return fail(mismatch);
  }
  return true;
}

bool Walker::match_value(const Value& pv, const Operand& to, const Node& tuser, int j, State& s) {
  auto where = [&] { return "operand " + std::to_string(j) + " of " + node_name(tuser) + ": "; };
  if (pv.is_input()) {
    if (!to.is_value())
      return fail([&] {
        return where() + "wildcard %" + pv.name() + " needs a value, found literal " + to.literal.to_string();
      });
    Value*& bound = s.wildcards[static_cast<size_t>(pv.index())];
    if (bound && bound != to.value)
      return fail([&] {
        return where() + "wildcard %" + pv.name() + " is bound to " + value_name(*bound) + ", found " +
               value_name(*to.value);
      });
    bound = to.value;
    return true;
  }
  const Node& pn = *pv.producer();
  const std::string expected(pn.info().name());
  if (!to.is_value())
    return fail([&] { return where() + "expected " + expected + ", found literal " + to.literal.to_string(); });
  Value& tv = *to.value;
  if (tv.is_input()) return fail([&] { return where() + "expected " + expected + ", found input " + value_name(tv); });
  Node& tn = *tv.producer();
  if (tn.op() != pn.op())
    return fail([&] {
      return where() + "expected " + expected + ", found " + std::string(tn.info().name()) + " at " + print_node(tn);
    });
  if (tv.index() != pv.index())
    return fail([&] {
      return where() + "expected result " + std::to_string(pv.index()) + " of " + expected + ", found result " +
             std::to_string(tv.index());
    });
  return match_node(pn, tn, s);
}

bool Walker::match_operands(const Node& pn, Node& tn, bool swapped, State& s) {
  const int node = entry_.node_index.at(&pn);
  for (int i = 0; i < pn.num_operands(); ++i) {
    const int j = swapped ? 1 - i : i;
    const Operand& po = pn.operand(i);
    const Operand& to = tn.operand(j);
    const bool ok =
        po.is_value() ? match_value(*po.value, to, tn, j, s) : match_literal(node, j, po.literal, to, tn, s);
    if (!ok) return false;
  }
  return true;
}

bool Walker::match_node(const Node& pn, Node& tn, State& s) {
  if (visits_) ++*visits_;
  const int node = entry_.node_index.at(&pn);
  Node*& bound = s.nodes[static_cast<size_t>(node)];
  if (bound)
    return bound == &tn || fail([&] {
             return "search node " + print_node(pn) + " is matched to both " + node_name(*bound) + " and " +
                    node_name(tn);
           });
  if (tn.num_operands() != pn.num_operands() || tn.num_results() != pn.num_results())
    return fail([&] {
      return node_name(tn) + ": expected " + std::to_string(pn.num_operands()) + " operands, found " +
             std::to_string(tn.num_operands());
    });
  if (tn.num_subgraphs() != 0) return fail([&] { return node_name(tn) + ": has subgraphs"; });
  if (!match_attrs(node, pn, tn, s)) return false;
  bound = &tn;
  if (depth_)
    *depth_ = std::max(*depth_, static_cast<int>(s.nodes.size() - std::count(s.nodes.begin(), s.nodes.end(), nullptr)));
  const bool commutes =
      pn.num_operands() == 2 && is_commutative(pn.op(), pn.attrs()) && is_commutative(tn.op(), tn.attrs());
  if (!commutes) return match_operands(pn, tn, false, s);
  if (attempt(s, true, [&](State& t) { return match_operands(pn, tn, false, t); })) return true;
  return attempt(s, false, [&](State& t) { return match_operands(pn, tn, true, t); });
}

bool is_matched(const State& s, const Node* n) { return std::find(s.nodes.begin(), s.nodes.end(), n) != s.nodes.end(); }

// Search nodes the walk back from the anchor did not reach: the other outputs and the nodes
// only they use (a joint pattern's backward). Each is looked for among the users of a value
// the match has already bound to one of its operands (the reference's MultiOutputPattern,
// generalized from outputs to any node), in search order, until a sweep binds nothing new.
bool Walker::match_outputs(State& s) {
  bool progress = true;
  while (progress) {
    progress = false;
    for (size_t i = 0; i < entry_.nodes.size(); ++i) {
      if (s.nodes[i]) continue;
      const Node& pn = *entry_.nodes[i];
      Value* bound = nullptr;
      for (const Operand& po : pn.operands()) {
        if (!po.is_value()) continue;
        const Value& pv = *po.value;
        if (pv.is_input()) {
          bound = s.wildcards[static_cast<size_t>(pv.index())];
        } else if (Node* tn = s.nodes[static_cast<size_t>(entry_.node_index.at(pv.producer()))]) {
          bound = tn->result(pv.index());
        }
        if (bound) break;
      }
      if (!bound) continue;
      bool found = false;
      for (const Use& use : bound->uses()) {
        if (use.user->op() != pn.op() || is_matched(s, use.user)) continue;
        if (attempt(s, false, [&](State& t) { return match_node(pn, *use.user, t); })) {
          found = true;
          break;
        }
      }
      if (!found)
        return fail(
            [&] { return "search node " + print_node(pn) + ": no user of " + value_name(*bound) + " matches"; });
      progress = true;
    }
  }
  for (size_t i = 0; i < s.nodes.size(); ++i)
    if (!s.nodes[i])
      return fail([&] { return "search node " + print_node(*entry_.nodes[i]) + " is not connected to the match"; });
  return true;
}

}  // namespace

bool match_at(const PatternSet::Entry& entry, Node* anchor, const OutputSet& graph_outputs, Match& out,
              std::string* why, int64_t* visits, int* depth) {
  const Pattern& p = entry.pattern;
  const Graph& search = *p.search;
  Walker w(entry, why, visits, depth);
  State s;
  s.nodes.assign(entry.nodes.size(), nullptr);
  s.wildcards.assign(static_cast<size_t>(search.num_inputs()), nullptr);
  s.scalars.assign(p.scalar_params.size(), std::nullopt);
  const Node& root = *search.outputs()[0]->producer();
  if (anchor->op() != root.op())
    return w.fail([&] {
      return "expected " + std::string(root.info().name()) + ", found " + std::string(anchor->info().name());
    });
  if (!w.match_node(root, *anchor, s) || !w.match_outputs(s)) return false;

  out = Match{};
  out.pattern = &p;
  out.anchor = anchor;
  for (const Value* o : search.outputs())
    out.outputs.push_back(s.nodes[static_cast<size_t>(entry.node_index.at(o->producer()))]->result(o->index()));
  // Multi-user rule: interior nodes are used only inside the match.
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    if (entry.produces_output[i]) continue;
    const Node& tn = *s.nodes[i];
    for (const Value* r : tn.results()) {
      if (graph_outputs.count(r))
        return w.fail([&] { return "interior node " + node_name(tn) + " is an output of the graph"; });
      for (const Use& use : r->uses())
        if (!is_matched(s, use.user))
          return w.fail([&] {
            return "interior node " + node_name(tn) + " has a user outside the match: " + print_node(*use.user);
          });
    }
  }
  for (const Value* v : s.wildcards)
    if (std::find(out.outputs.begin(), out.outputs.end(), v) != out.outputs.end())
      return w.fail([&] { return "wildcard bound to " + value_name(*v) + ", which the match replaces"; });
  out.wildcards = std::move(s.wildcards);
  out.nodes = std::move(s.nodes);
  out.literals = std::move(s.literals);
  for (size_t k = 0; k < s.scalars.size(); ++k) {
    if (!s.scalars[k])
      return w.fail([&] { return "scalar parameter '" + p.scalar_params[k].name + "' found no literal"; });
    out.scalars.push_back(*s.scalars[k]);
  }
  return true;
}

}  // namespace pattern_detail

Value* Match::wildcard(std::string_view name) const {
  for (int i = 0; i < pattern->search->num_inputs(); ++i)
    if (pattern->search->input(i)->name() == name) return wildcards[static_cast<size_t>(i)];
  return nullptr;
}

namespace {

// The printed search graph without its name, to find duplicates.
std::string print_unnamed(const Graph& g) {
  std::string text = print_graph(g);
  const size_t at = text.find('@'), paren = text.find('(');
  return text.erase(at, paren - at);
}

}  // namespace

Status PatternSet::add(Pattern pattern) {
  auto error = [&](auto&&... args) { return make_error("pattern '", pattern.name, "': ", args...); };
  if (!pattern.search) return error("has no search graph");
  const Graph& search = *pattern.search;
  if (search.outputs().empty()) return error("the search graph has no outputs");
  for (size_t k = 0; k < search.outputs().size(); ++k)
    if (search.outputs()[k]->is_input()) return error("search output ", k, " is an input, not a node");
  for (const Value* in : search.inputs())
    if (!in->has_uses()) return error("search input %", in->name(), " is not used");
  if (static_cast<bool>(pattern.replacement) == static_cast<bool>(pattern.replace))
    return error("needs exactly one of a replacement graph and a replacement callback");
  if (pattern.replacement && (pattern.replacement->num_inputs() != search.num_inputs() ||
                              pattern.replacement->outputs().size() != search.outputs().size()))
    return error("the replacement graph must have the search graph's ", search.num_inputs(), " inputs and ",
                 search.outputs().size(), " outputs");
  auto e = std::make_unique<Entry>();
  for (Node* n : search.nodes()) {
    if (n->num_subgraphs() != 0) return error("search node ", print_node(*n), " has subgraphs");
    const bool is_output = std::any_of(search.outputs().begin(), search.outputs().end(),
                                       [&](const Value* o) { return o->producer() == n; });
    if (!is_output && !n->has_users()) return error("search node ", print_node(*n), " is not used");
    e->node_index[n] = static_cast<int>(e->nodes.size());
    e->nodes.push_back(n);
    e->produces_output.push_back(is_output);
  }
  e->printed_search = print_unnamed(search);
  for (const auto& other : entries_) {
    if (other->pattern.name == pattern.name) return error("a pattern of that name is already in set '", name_, "'");
    if (other->printed_search == e->printed_search)
      return error("has the same search graph as pattern '", other->pattern.name, "'");
  }
  const OpKind anchor = search.outputs()[0]->producer()->op();
  e->pattern = std::move(pattern);
  by_anchor_[static_cast<size_t>(anchor)].push_back(static_cast<int>(entries_.size()));
  entries_.push_back(std::move(e));
  return Status::ok();
}

std::optional<Match> match_pattern(const PatternSet& set, int index, Node* anchor, std::string* why, int64_t* visits) {
  Match m;
  if (!pattern_detail::match_at(set.entry(index), anchor, pattern_detail::graph_output_set(*anchor->graph()), m, why,
                                visits))
    return std::nullopt;
  return m;
}

}  // namespace kiln
