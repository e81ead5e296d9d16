// How the generator draws one application of an op: a recipe fills an OpDraft's operands,
// attributes and subgraphs, and GenContext::append then asks the op's rules whether it is
// well typed (a draft the rules refuse is drawn again). Most ops need no recipe of their own:
// fill_from_schema reads their schema. The others are grouped by family, one file each
// (recipes_*.cc), and registered in op_recipes.cc.
#pragma once

#include <array>

#include "fuzz/gen_context.h"
#include "ops/schema.h"

namespace kiln::fuzz {

// Fills `d`; false when it cannot (no value of a kind it needs), so the generator draws again.
using Recipe = bool (*)(GenContext& ctx, OpDraft& d);

// The recipe of `op`: its own, else fill_from_schema.
Recipe recipe_for(OpKind op);

// Operands and attributes from the schema alone: the first tensor operand is a drawn value,
// later ones broadcast with it (bool where the argument is a condition or mask), literals
// where the schema allows them, and each attribute drawn by draw_attr or left to its default.
bool fill_from_schema(GenContext& ctx, OpDraft& d);
// One attribute drawn from its name and type (dim, keepdim, dtype, alpha, rounding_mode, ...)
// for an operand of type `self`; false when the name and type say too little (a size list).
bool draw_attr(GenContext& ctx, OpDraft& d, const ArgSchema& arg, const TensorType& self);

// A drawn value of rank `min_rank` or more, or null.
Value* pick_ranked(GenContext& ctx, int min_rank);

// Whether an in-place op may write `v`: not a body's input or a view of one (a body may only
// mutate what it creates), and not a view whose elements may share memory (expand, as_strided).
bool writable(const GenContext& ctx, const Value* v);

// Recipes by family, each registering its own in the table.
using RecipeTable = std::array<Recipe, kNumOps>;
void add_layout_recipes(RecipeTable& table);    // recipes_layout.cc: views, cat, pad, ...
void add_index_recipes(RecipeTable& table);     // recipes_index.cc: gather, scatter, index, ...
void add_nn_recipes(RecipeTable& table);        // recipes_nn.cc: matmuls, norms, losses, conv, ...
void add_creation_recipes(RecipeTable& table);  // recipes_creation.cc: full, arange, rand, ...
void add_control_recipes(RecipeTable& table);   // recipes_control.cc: cond, while_loop, scan, map
void add_sort_recipes(RecipeTable& table);      // recipes_sort.cc: topk, histc

}  // namespace kiln::fuzz
