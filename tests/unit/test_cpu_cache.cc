// The CPU runtime's compiler and disk cache: a second compile of the same program loads
// every chunk from the cache without running a compiler (its path may not even exist);
// changed emit options or flags miss; an entry whose files do not match the checksums
// recorded beside them is rebuilt, with a note; concurrent fills of one entry agree; a
// compiler command takes arguments (a launcher, flags), part of its identity; a missing or
// failing compiler, or one that writes nothing, is a Diagnostic naming it and its command
// line; the content hash is stable; processes run without a shell.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "cpu_backend_util.h"
#include "ir/parser.h"
#include "lower/loop_eval.h"
#include "lower/lower.h"
#include "lowering_cases.h"
#include "runtime/cpu/kernel_cache.h"
#include "runtime/cpu/process.h"
#include "support/hash.h"

namespace kiln {
namespace {

// Three lowering cases in f32 as one program of a dozen kernels (unfused, one per node).
LoopProgram test_program() {
  std::vector<LoopProgram> parts;
  for (int c : {0, 1, 3}) {
    auto g = parse_graph(with_dtype(kLoweringCases[c].text, "f32"));
    EXPECT_TRUE(g);
    auto p = lower_graph(**g, LowerOptions{.fuse = false});
    EXPECT_TRUE(p);
    parts.push_back(std::move(*p));
  }
  return merge_programs("cached", parts);
}

// One lowering case: a program of one small chunk, for tests that compile it many times.
LoopProgram small_program(const std::string& name) {
  auto g = parse_graph(with_dtype(kLoweringCases[0].text, "f32"));
  EXPECT_TRUE(g);
  auto p = lower_graph(**g);
  EXPECT_TRUE(p);
  p->name = name;
  return std::move(*p);
}

std::vector<Tensor> inputs_for(const LoopProgram& p) {
  std::vector<Tensor> in;
  for (int b : p.inputs) in.push_back(Tensor::randn(p.buffers[static_cast<size_t>(b)].sizes, 5 + in.size()));
  return in;
}

void expect_runs_like_evaluator(const CompiledProgram& c) {
  const std::vector<Tensor> in = inputs_for(c.program());
  auto got = c.run(in);
  ASSERT_TRUE(got) << got.error().to_string();
  auto want = eval_loops(c.program(), in);
  ASSERT_TRUE(want);
  for (size_t j = 0; j < want->size(); ++j) expect_close((*want)[j], (*got)[j], "output " + std::to_string(j));
}

// Options that compile into `dir` (a cache of the test's own) in at most `jobs` chunks.
CpuCompileOptions options_in(const TempDir& dir, int jobs) {
  CpuCompileOptions o;
  o.cache_dir = dir.path();
  o.jobs = jobs;
  o.min_kernels_per_chunk = 4;
  return o;
}

TEST(CpuCache, SecondCompileLoadsWithoutCompiler) {
  TempDir dir("kiln-cache-test");
  const LoopProgram p = test_program();
  CpuCompileOptions o = options_in(dir, 2);
  auto first = CompiledProgram::compile(p, o);
  ASSERT_TRUE(first) << first.error().to_string();
  const CompileStats& s1 = first->stats();
  ASSERT_EQ(s1.chunks.size(), 2u);
  EXPECT_EQ(s1.compiled(), 2);
  EXPECT_EQ(s1.chunks[0].kernels.size() + s1.chunks[1].kernels.size(), p.kernels.size());
  for (const ChunkStats& c : s1.chunks) {
    EXPECT_FALSE(c.cache_hit);
    EXPECT_GT(c.compile_seconds, 0);
    EXPECT_TRUE(std::filesystem::exists(dir.path() + "/" + c.key + ".cpp"));
    EXPECT_TRUE(std::filesystem::exists(dir.path() + "/" + c.key + ".so"));
  }
  expect_runs_like_evaluator(*first);

  // Same identity and flags, but an executable that does not exist: only hits can succeed.
  o.toolchain = s1.toolchain;
  o.toolchain->path = "/nonexistent/kiln-test/c++";
  auto second = CompiledProgram::compile(p, o);
  ASSERT_TRUE(second) << second.error().to_string();
  EXPECT_EQ(second->stats().hits(), 2);
  EXPECT_EQ(second->stats().compiled(), 0);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(second->stats().chunks[i].key, s1.chunks[i].key);
    EXPECT_EQ(second->stats().chunks[i].compile_seconds, 0);
  }
  expect_runs_like_evaluator(*second);

  // A miss needs the compiler, which is not there.
  o.emit.parallel_threshold = 1;
  auto missing = CompiledProgram::compile(p, o);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().to_string().find("could not be run"), std::string::npos) << missing.error().to_string();
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// Compiles `p` into `o`'s cache (one chunk): the chunk's stats, after checking that the
// program runs as the evaluator does. The program is unloaded on return, so that the test
// may change its library's file.
ChunkStats compile_one_chunk(const LoopProgram& p, const CpuCompileOptions& o) {
  auto c = CompiledProgram::compile(p, o);
  EXPECT_TRUE(c) << c.error().to_string();
  if (!c) return {};
  EXPECT_EQ(c->stats().chunks.size(), 1u);
  expect_runs_like_evaluator(*c);
  return c->stats().chunks.at(0);
}

TEST(CpuCache, AnEntryThatFailsVerificationIsRebuilt) {
  TempDir dir("kiln-cache-test");
  const LoopProgram p = small_program("cached");
  const CpuCompileOptions o = options_in(dir, 1);
  const std::string key = compile_one_chunk(p, o).key;
  const std::string so = dir.path() + "/" + key + ".so", cpp = dir.path() + "/" + key + ".cpp",
                    sum = dir.path() + "/" + key + ".sum";
  const std::string library = read_bytes(so), source = read_bytes(cpp), record = read_bytes(sum);
  ASSERT_GT(library.size(), 1000u) << "a library, more than the foreign file written below";
  EXPECT_TRUE(compile_one_chunk(p, o).cache_hit);

  // Another unit's entry, to put under this key.
  const std::string other_key = compile_one_chunk(small_program("other"), o).key;
  ASSERT_NE(other_key, key);

  const std::string size = std::to_string(library.size());
  std::string flipped = library;
  flipped[flipped.size() / 2] ^= 1;
  const struct {
    std::string what;
    std::function<void()> corrupt;
    std::string problem;  // "": a quiet miss
  } cases[] = {
      {"truncated library", [&] { write_bytes(so, library.substr(0, library.size() / 2)); },
       "its library has " + std::to_string(library.size() / 2) + " bytes, not the " + size +
           " it was built with (truncated or overwritten)"},
      {"a foreign file as library", [&] { write_bytes(so, "#!/bin/sh\n"); },
       "its library has 10 bytes, not the " + size + " it was built with (truncated or overwritten)"},
      {"one byte of the library changed", [&] { write_bytes(so, flipped); },
       "its library's bytes are not those it was built with"},
      {"edited source", [&] { write_bytes(cpp, source + "// edited\n"); },
       "its source " + cpp + " was changed or removed"},
      {"another unit's entry",
       [&] {
         for (const char* ext : {".cpp", ".so", ".sum"})
           std::filesystem::copy_file(dir.path() + "/" + other_key + ext, dir.path() + "/" + key + ext,
                                      std::filesystem::copy_options::overwrite_existing);
       },
       "it was built from other source or options under the same key"},
      {"a record of another kind", [&] { write_bytes(sum, "checksums\n"); },
       "its checksum record " + sum + " is not one this kiln writes"},
      {"no record (an older kiln's entry, or one being written)", [&] { std::filesystem::remove(sum); }, ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    c.corrupt();
    testing::internal::CaptureStderr();
    const ChunkStats rebuilt = compile_one_chunk(p, o);
    const std::string note = testing::internal::GetCapturedStderr();
    EXPECT_FALSE(rebuilt.cache_hit);
    EXPECT_GT(rebuilt.compile_seconds, 0);
    EXPECT_EQ(rebuilt.rebuilt_because, c.problem);
    EXPECT_EQ(note,
              c.problem.empty() ? "" : "kiln: note: rebuilding the kernel cache entry " + so + ": " + c.problem + "\n");
    EXPECT_EQ(read_bytes(so), library);
    EXPECT_EQ(read_bytes(cpp), source);
    EXPECT_EQ(read_bytes(sum), record);
    EXPECT_TRUE(compile_one_chunk(p, o).cache_hit);
  }
}

// Threads (as processes would) that fill one entry at once each write whole files under
// names of their own: all succeed, none sees another's partial entry as corrupt.
TEST(CpuCache, ConcurrentFillsOfOneEntryAgree) {
  TempDir dir("kiln-cache-test");
  const LoopProgram p = small_program("shared");
  const CpuCompileOptions o = options_in(dir, 1);
  std::vector<Expected<CompiledProgram>> compiled;
  for (int t = 0; t < 4; ++t) compiled.push_back(Diagnostic("not compiled"));
  testing::internal::CaptureStderr();
  std::vector<std::thread> threads;
  for (size_t t = 0; t < compiled.size(); ++t)
    threads.emplace_back([&, t] { compiled[t] = CompiledProgram::compile(p, o); });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  for (const Expected<CompiledProgram>& c : compiled) {
    ASSERT_TRUE(c) << c.error().to_string();
    EXPECT_EQ(c->stats().chunks.at(0).rebuilt_because, "");
    expect_runs_like_evaluator(*c);
  }
  EXPECT_TRUE(compile_one_chunk(p, o).cache_hit);
  for (const auto& file : std::filesystem::directory_iterator(dir.path()))
    EXPECT_EQ(file.path().string().find(".tmp-"), std::string::npos) << "left behind: " << file.path();
}

TEST(CpuCache, ChangedOptionsOrFlagsMiss) {
  TempDir dir("kiln-cache-test");
  const LoopProgram p = test_program();
  CpuCompileOptions o = options_in(dir, 1);
  auto base = CompiledProgram::compile(p, o);
  ASSERT_TRUE(base) << base.error().to_string();
  ASSERT_EQ(base->stats().chunks.size(), 1u);
  const std::string key = base->stats().chunks[0].key;

  o.emit.parallel_threshold = 1;
  auto other_emit = CompiledProgram::compile(p, o);
  ASSERT_TRUE(other_emit) << other_emit.error().to_string();
  EXPECT_EQ(other_emit->stats().compiled(), 1);
  EXPECT_NE(other_emit->stats().chunks[0].key, key);
  expect_runs_like_evaluator(*other_emit);

  o.emit = {};
  o.toolchain = base->stats().toolchain;
  o.toolchain->flags.push_back("-DKILN_CACHE_TEST_FLAG=1");
  auto other_flags = CompiledProgram::compile(p, o);
  ASSERT_TRUE(other_flags) << other_flags.error().to_string();
  EXPECT_EQ(other_flags->stats().compiled(), 1);
  EXPECT_NE(other_flags->stats().chunks[0].key, key);
}

TEST(CpuCache, CompilerErrorsAreDiagnostics) {
  TempDir dir("kiln-cache-test");
  const LoopProgram p = test_program();
  CpuCompileOptions o = options_in(dir, 1);
  o.compiler = "/nonexistent/kiln-test/c++";
  auto absent = CompiledProgram::compile(p, o);
  ASSERT_FALSE(absent);
  EXPECT_NE(absent.error().to_string().find("C++ compiler '/nonexistent/kiln-test/c++' not found"), std::string::npos)
      << absent.error().to_string();
  EXPECT_NE(absent.error().to_string().find("while compiling loops @cached for the CPU"), std::string::npos);

  auto not_in_path = find_cpu_toolchain("kiln-no-such-compiler");
  ASSERT_FALSE(not_in_path);
  EXPECT_NE(not_in_path.error().to_string().find("'kiln-no-such-compiler' not found in PATH"), std::string::npos);
  auto launcher_not_in_path = find_cpu_toolchain("kiln-no-such-launcher g++");
  ASSERT_FALSE(launcher_not_in_path);
  EXPECT_NE(launcher_not_in_path.error().to_string().find(
                "C++ compiler 'kiln-no-such-launcher g++' not found: no program 'kiln-no-such-launcher' in PATH"),
            std::string::npos)
      << launcher_not_in_path.error().to_string();
  auto no_words = find_cpu_toolchain(" \t");
  ASSERT_FALSE(no_words);
  EXPECT_NE(no_words.error().to_string().find("C++ compiler ' \t' names no program"), std::string::npos);
  auto open_quote = find_cpu_toolchain("'g++");
  ASSERT_FALSE(open_quote);
  EXPECT_EQ(open_quote.error().to_string(),
            "error: C++ compiler ''g++': the quote ' at column 1 of ''g++' is not closed");

  auto no_version = find_cpu_toolchain("false");
  ASSERT_FALSE(no_version);
  EXPECT_NE(no_version.error().to_string().find("'false' failed to report its version (exited with status 1)"),
            std::string::npos)
      << no_version.error().to_string();

  auto killed = find_cpu_toolchain("/bin/sh -c 'kill -9 $$'");
  ASSERT_FALSE(killed);
  EXPECT_NE(killed.error().to_string().find("failed to report its version (was killed by signal 9 (SIGKILL: Killed))"),
            std::string::npos)
      << killed.error().to_string();

  // A compiler that rejects its flags: the message names it, quotes the command and its output.
  auto real = find_cpu_toolchain();
  ASSERT_TRUE(real) << real.error().to_string();
  o.compiler.clear();
  o.toolchain = *real;
  o.toolchain->flags.push_back("--kiln-no-such-flag");
  auto rejected = CompiledProgram::compile(p, o);
  ASSERT_FALSE(rejected);
  const std::string msg = rejected.error().to_string();
  EXPECT_NE(msg.find("failed (exited with status"), std::string::npos) << msg;
  EXPECT_NE(
      msg.find(real->path +
               " -O3 -march=native -mprefer-vector-width=512 -fopenmp -fPIC -shared -fno-math-errno -fno-trapping-math "
               "-ffp-contract=off -std=c++17 "
               "--kiln-no-such-flag -o "),
      std::string::npos)
      << msg;
  EXPECT_NE(msg.find("its output begins:"), std::string::npos) << msg;
  // The flag appears in the command and again in the compiler's complaint.
  EXPECT_NE(msg.find("kiln-no-such-flag", msg.find("its output begins:")), std::string::npos) << msg;
}

TEST(CpuCache, CompilerCommandsTakeArguments) {
  // A launcher and a flag, as CXX="ccache g++ -O0" would give them.
  const std::string command = "env 'c++' -DKILN_CACHE_TEST_WORD=1";
  auto launched = find_cpu_toolchain(command);
  ASSERT_TRUE(launched) << launched.error().to_string();
  EXPECT_EQ(launched->compiler, command);
  EXPECT_EQ(launched->path, resolve_program("env"));
  EXPECT_EQ(launched->arguments, (std::vector<std::string>{"c++", "-DKILN_CACHE_TEST_WORD=1"}));
  EXPECT_EQ(launched->identity.substr(0, launched->identity.find('\n')),
            launched->path + " c++ -DKILN_CACHE_TEST_WORD=1");
  const std::vector<std::string> argv = launched->command("a.cpp", "a.so");
  ASSERT_GE(argv.size(), 4u);
  EXPECT_EQ((std::vector<std::string>{argv[0], argv[1], argv[2], argv[3]}),
            (std::vector<std::string>{launched->path, "c++", "-DKILN_CACHE_TEST_WORD=1", "-O3"}));
  // The words are part of the identity, so the same unit gets its own key.
  auto plain = find_cpu_toolchain("c++");
  ASSERT_TRUE(plain) << plain.error().to_string();
  EXPECT_NE(KernelCache::key("unit", "", *launched), KernelCache::key("unit", "", *plain));

  TempDir dir("kiln-cache-test");
  CpuCompileOptions o = options_in(dir, 1);
  o.compiler = command;
  auto c = CompiledProgram::compile(test_program(), o);
  ASSERT_TRUE(c) << c.error().to_string();
  EXPECT_EQ(c->stats().compiled(), 1);
  expect_runs_like_evaluator(*c);
}

TEST(CpuCache, ACompilerThatWritesNothingIsAnError) {
  TempDir dir("kiln-cache-test");
  const std::string silent = dir.path() + "/silent-c++";
  std::ofstream(silent) << "#!/bin/sh\n[ \"$1\" = --version ] && echo 'silent 1.0'\nexit 0\n";
  std::filesystem::permissions(silent, std::filesystem::perms::owner_all);
  CpuCompileOptions o = options_in(dir, 1);
  o.compiler = silent;
  auto c = CompiledProgram::compile(test_program(), o);
  ASSERT_FALSE(c);
  const std::string msg = c.error().to_string();
  EXPECT_NE(msg.find("error: C++ compiler '" + silent + "' exited with status 0 but wrote no library " + dir.path()),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find(": " + silent + " -O3 -march=native"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("its output begins"), std::string::npos) << "it printed nothing: " << msg;
}

TEST(CpuCache, CommandLinesSplitLikeMake) {
  auto words = [](const std::string& text) {
    auto w = split_command_line(text);
    EXPECT_TRUE(w) << w.error().to_string();
    return w ? *w : std::vector<std::string>{};
  };
  EXPECT_EQ(words("ccache g++"), (std::vector<std::string>{"ccache", "g++"}));
  EXPECT_EQ(words("  g++\t-O0  "), (std::vector<std::string>{"g++", "-O0"}));
  EXPECT_EQ(words("'/opt/my cc/g++' \"-DA=a b\" x'y z'w ''"),
            (std::vector<std::string>{"/opt/my cc/g++", "-DA=a b", "xy zw", ""}));
  EXPECT_EQ(words(R"('it"s' "it's")"), (std::vector<std::string>{"it\"s", "it's"}));
  EXPECT_TRUE(words("").empty());
  auto open = split_command_line("g++ \"-DA");
  ASSERT_FALSE(open);
  EXPECT_EQ(open.error().message(), "the quote \" at column 5 of 'g++ \"-DA' is not closed");
}

TEST(CpuCache, ContentHashIsStable) {
  // Pinned: a change here would silently invalidate (or worse, alias) every cached kernel.
  EXPECT_EQ(ContentHash().hex(), "cbf29ce484222325");
  EXPECT_EQ(ContentHash().add("kiln").add("").hex(), ContentHash().add("kiln").add("").hex());
  // FNV-1a 64 of the 8-byte little-endian length 4, then "kiln".
  EXPECT_EQ(ContentHash().add("kiln").hex(), "ccc9629832a174af");
  EXPECT_NE(ContentHash().add("ab").add("c").value(), ContentHash().add("a").add("bc").value());
}

TEST(CpuCache, ProcessesRunWithoutAShell) {
  auto r = run_process({"/bin/echo", "a b", "'$HOME'", "; true"});
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->output, "a b '$HOME' ; true\n");
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_EQ(command_line_text({"/bin/echo", "a b", "it's", "-O3"}), "/bin/echo 'a b' 'it'\\''s' -O3");
  // A signal is its own field, never read from the exit status (a shell reports one as 128 + N).
  auto killed = run_process({"/bin/sh", "-c", "kill -9 $$"});
  ASSERT_TRUE(killed) << killed.error().to_string();
  EXPECT_FALSE(killed->ok());
  EXPECT_EQ(killed->signal, 9);
  EXPECT_EQ(killed->exit_code, 0);
  EXPECT_EQ(killed->how_it_ended(), "was killed by signal 9 (SIGKILL: Killed)");
  auto exited = run_process({"/bin/sh", "-c", "exit 137"});
  ASSERT_TRUE(exited) << exited.error().to_string();
  EXPECT_EQ(exited->signal, 0);
  EXPECT_EQ(exited->exit_code, 137);
  EXPECT_EQ(exited->how_it_ended(), "exited with status 137");
  auto missing = run_process({"/nonexistent/kiln-test"});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().to_string().find("cannot run /nonexistent/kiln-test"), std::string::npos);
}

}  // namespace
}  // namespace kiln
