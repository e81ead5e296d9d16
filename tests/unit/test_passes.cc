// Pass manager, DCE, CSE and topological sort on graphs built in C++ (cases the text form
// cannot express, such as nodes out of order).
#include <gtest/gtest.h>

#include <sstream>

#include "ir/graph.h"
#include "ir/printer.h"
#include "passes/cse.h"
#include "passes/dce.h"
#include "passes/pass_manager.h"
#include "passes/topo_sort.h"

namespace kiln {
namespace {

TensorType f32(std::initializer_list<int64_t> sizes) { return {DType::F32, Shape(sizes)}; }

TEST(TopoSort, RestoresDefBeforeUse) {
  Graph g("g");
  Value* x = g.add_input("x", f32({4}));
  Node* a = g.append({OpKind::Exp, {x}, {}, {f32({4})}});
  Node* b = g.append({OpKind::Neg, {a->result()}, {}, {f32({4})}});
  g.set_outputs({b->result()});
  g.move_before(b, a);  // now neg uses exp's result before it is defined
  PassResult r = sort_topologically(g);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(r.counters["nodes_moved"], 2);
  std::vector<Node*> order = g.nodes();
  ASSERT_EQ(order.size(), 2u);
  EXPECT_EQ(order[0], a);
  EXPECT_EQ(order[1], b);
}

TEST(TopoSort, KeepsRandomOpsInOrder) {
  Graph g("g");
  Node* r1 = g.append({OpKind::Rand, {}, {{"size", AttrValue::Ints{2}}, {"seed", 1}}, {f32({2})}});
  Node* r2 = g.append({OpKind::Rand, {}, {{"size", AttrValue::Ints{2}}, {"seed", 2}}, {f32({2})}});
  g.set_outputs({r1->result(), r2->result()});
  EXPECT_FALSE(sort_topologically(g).changed);
  EXPECT_EQ(g.nodes()[0], r1);
}

TEST(Dce, CountsRemovedNodes) {
  Graph g("g");
  Value* x = g.add_input("x", f32({4}));
  Node* a = g.append({OpKind::Exp, {x}, {}, {f32({4})}});
  g.append({OpKind::Neg, {a->result()}, {}, {f32({4})}});
  g.set_outputs({x});
  PassResult r = eliminate_dead_code(g);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(r.counters["nodes_removed"], 2);
  EXPECT_EQ(g.num_nodes(), 0u);
  EXPECT_FALSE(x->has_uses());
}

TEST(Cse, MergesAndMovesUses) {
  Graph g("g");
  Value* x = g.add_input("x", f32({4}));
  Node* a = g.append({OpKind::Exp, {x}, {}, {f32({4})}});
  Node* b = g.append({OpKind::Exp, {x}, {}, {f32({4})}});
  Node* c = g.append({OpKind::Add, {a->result(), b->result()}, {}, {f32({4})}});
  g.set_outputs({c->result(), b->result()});
  PassResult r = eliminate_common_subexpressions(g);
  EXPECT_EQ(r.counters["nodes_merged"], 1);
  EXPECT_EQ(c->operand(1).value, a->result());
  EXPECT_EQ(g.outputs()[1], a->result());
  EXPECT_EQ(a->result()->uses().size(), 2u);
}

TEST(PassManager, UnknownPassIsAnError) {
  Graph g("g");
  g.set_outputs({g.add_input("x", f32({4}))});
  Status s = run_passes(g, "dce,bogus");
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.error().message().find("unknown pass 'bogus'"), std::string::npos);
}

TEST(PassManager, PrintsAfterChangeAndTimes) {
  Graph g("g");
  Value* x = g.add_input("x", f32({4}));
  g.append({OpKind::Exp, {x}, {}, {f32({4})}});
  g.set_outputs({x});
  std::ostringstream log;
  PassManagerOptions opts;
  opts.print_after_change = true;
  opts.time_passes = true;
  opts.log = &log;
  ASSERT_TRUE(run_passes(g, "cse,dce", opts).is_ok());
  std::string text = log.str();
  EXPECT_NE(text.find("pass cse:"), std::string::npos);
  EXPECT_NE(text.find("nodes_removed=1"), std::string::npos);
  EXPECT_EQ(text.find("IR after cse"), std::string::npos);  // cse changed nothing
  EXPECT_NE(text.find("IR after dce"), std::string::npos);
}

TEST(PassManager, ReportsEachPassCountersInTheFacts) {
  Graph g("g");
  Value* x = g.add_input("x", f32({4}));
  g.append({OpKind::Exp, {x}, {}, {f32({4})}});
  g.append({OpKind::Neg, {x}, {}, {f32({4})}});
  g.set_outputs({x});
  PipelineFacts facts;
  ASSERT_TRUE(run_passes(g, "cse,dce,dce", {}, &facts).is_ok());
  EXPECT_EQ(facts.counters["dce"]["nodes_removed"], 2);  // both nodes, by the first dce
  EXPECT_FALSE(facts.mutation_info.has_value());         // no functionalize in the pipeline
}

}  // namespace
}  // namespace kiln
