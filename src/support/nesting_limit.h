// A bound on how deeply a recursive-descent reader nests, so that a generated or hostile file
// (a dim written inside 10,000 parentheses) is an error at its position rather than a stack
// overflow. A reader keeps one NestingLimit per kind of construct and holds a Level for each
// nesting it enters:
//
//   NestingLimit::Level level(parens_);
//   if (level.too_deep()) return error_at(tok, "nested deeper than ", parens_.max_depth(), " levels");
#pragma once

namespace kiln {

// The depth most text readers allow for an expression or block: far beyond what kiln or a
// person writes, and a few hundred stack frames, which even sanitized builds afford.
inline constexpr int kMaxTextNesting = 256;

class NestingLimit {
 public:
  explicit constexpr NestingLimit(int max_depth = kMaxTextNesting) : max_depth_(max_depth) {}
  NestingLimit(const NestingLimit&) = delete;
  NestingLimit& operator=(const NestingLimit&) = delete;

  int max_depth() const { return max_depth_; }

  // One level of nesting, entered when made and left when destroyed.
  class Level {
   public:
    explicit Level(NestingLimit& limit) : limit_(limit) { ++limit_.depth_; }
    ~Level() { --limit_.depth_; }
    Level(const Level&) = delete;
    Level& operator=(const Level&) = delete;

    // Whether this level lies past the limit: the reader must stop here with an error.
    bool too_deep() const { return limit_.depth_ > limit_.max_depth_; }

   private:
    NestingLimit& limit_;
  };

 private:
  int max_depth_;
  int depth_ = 0;
};

}  // namespace kiln
