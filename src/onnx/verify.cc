#include "onnx/verify.h"

#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <unordered_set>

#include "core/npy.h"
#include "interp/interpreter.h"
#include "ir/printer.h"
#include "onnx/locate_crash.h"
#include "onnx/model_file.h"
#include "onnx/onnx_runner.h"
#include "ops/type_rules.h"

namespace kiln::onnx {

namespace {

namespace fs = std::filesystem;

std::string type_text(const Tensor& t) {
  return std::string(dtype_name(t.dtype())) + Shape::from_sizes(t.sizes()).to_string();
}

// Row-major coordinates of element `flat` of `sizes`.
std::vector<int64_t> coordinates(const std::vector<int64_t>& sizes, int64_t flat) {
  std::vector<int64_t> idx(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) {
    idx[d] = sizes[d] == 0 ? 0 : flat % sizes[d];
    flat = sizes[d] == 0 ? 0 : flat / sizes[d];
  }
  return idx;
}

// The temporary directory of one verify call, removed at the end.
class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (fs::temp_directory_path() / "kiln_verify_XXXXXX").string();
    if (mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The kiln node that `crashing` was exported from: the producer of the first value the
// exporter named at or after it; null when none is (a model not exported from this graph).
const Node* exported_from(const CrashingNode& crashing, const ExportedModel& m) {
  std::unordered_map<std::string, const Value*> by_name;
  for (const auto& [v, name] : m.value_names()) by_name.emplace(name, v);
  for (const std::vector<std::string>* names : {&crashing.outputs, &crashing.later_outputs})
    for (const std::string& name : *names)
      if (auto it = by_name.find(name); it != by_name.end()) return it->second->producer();
  return nullptr;
}

// Why the runner failed, as the user should read it: the runner's own one-line message when
// it reports the model's error; else how the process ended, the node that kills it when it
// died of a signal (locate_crash.h), and the last lines it printed.
Diagnostic runner_error(const ProcessResult& f, const OnnxRunner& runner, const std::string& model,
                        const std::string& input_paths, const ExportedModel& m, const std::string& dir) {
  std::string said = f.output;
  while (!said.empty() && (said.back() == '\n' || said.back() == ' ')) said.pop_back();
  if (f.exit_code == 3 && !said.empty()) return make_error("verify cannot run the ONNX model: ", said);
  if (f.exit_code == 1 && !said.empty())
    return make_error("the ONNX model fails to run in ", runner.backend_name(), ": ", said);
  Diagnostic d = make_error("the ONNX model fails to run in ", runner.backend_name(), ": the runner process ",
                            f.how_it_ended(), said.empty() ? " and printed nothing" : "");
  if (f.signal) {
    Expected<std::optional<CrashingNode>> node = locate_crashing_node(runner, model, input_paths, f.signal, dir);
    if (!node) d.add_context("(the node could not be searched for: " + node.error().message() + ")");
    if (node && *node) {
      const CrashingNode& c = **node;
      const Node* from = exported_from(c, m);
      d.add_context("in ONNX node " + std::to_string(c.index) + " of " + std::to_string(c.num_nodes) + " ('" + c.name +
                    "', " + c.op_type + ")" + (from ? ", exported from " + print_node(*from) : std::string()));
    }
    if (node && !*node) d.add_context("(no single node kills it: the model's first nodes alone all run)");
  }
  const std::vector<std::string> tail = last_lines(f.output, 8);
  if (!tail.empty()) d.add_context("the runner's last lines:");
  for (const std::string& line : tail) d.add_context("| " + line);
  return d;
}

// Runs the model on `inputs` in the runner (onnx_runner.h); returns its outputs in model order.
Expected<std::vector<Tensor>> run_model(const std::string& model, std::span<const Tensor> inputs,
                                        const VerifyOptions& o, const ExportedModel& m, const std::string& dir) {
  KILN_ASSIGN_OR_RETURN(OnnxRunner runner, OnnxRunner::create(o));
  std::string paths;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string p = dir + "/in" + std::to_string(i) + ".npy";
    KILN_TRY(write_npy(p, inputs[i]));
    paths += (i ? "," : "") + p;
  }
  const std::string out_dir = dir + "/onnx_out";
  KILN_ASSIGN_OR_RETURN(ProcessResult r, runner.run(model, paths, out_dir));
  if (!r.ok()) return runner_error(r, runner, model, paths, m, dir);
  return OnnxRunner::read_outputs(out_dir, r.output);
}

// `model` with every value named in `names` that some node of it produces made a graph output
// too (for intermediates of a model given as a file); returns the names it exposed.
Expected<std::vector<std::string>> expose_values(const std::string& model, const std::string& out_path,
                                                 const std::vector<std::string>& names) {
  KILN_ASSIGN_OR_RETURN(::onnx::ModelProto m, read_model_file(model));
  std::unordered_set<std::string> produced, outputs;
  for (const ::onnx::NodeProto& n : m.graph().node())
    for (const std::string& o : n.output()) produced.insert(o);
  for (const ::onnx::ValueInfoProto& o : m.graph().output()) outputs.insert(o.name());
  std::vector<std::string> exposed;
  for (const std::string& n : names) {
    if (!produced.count(n) || outputs.count(n)) continue;
    m.mutable_graph()->add_output()->set_name(n);
    exposed.push_back(n);
  }
  KILN_TRY(write_model_file(out_path, m));
  return exposed;
}

}  // namespace

OutputReport compare_output(const Tensor& onnx_in, const Tensor& kiln_in, const VerifyOptions& o) {
  OutputReport r;
  r.kiln_type = type_text(kiln_in);
  r.onnx_type = type_text(onnx_in);
  auto fail = [&](std::string why) {
    r.passed = false;
    r.problem = std::move(why);
    r.mismatch_fraction = 1;
    return r;
  };
  if (o.check_dtype && onnx_in.dtype() != kiln_in.dtype()) return fail("dtype differs");
  Tensor a = onnx_in, b = kiln_in;
  if (a.sizes() != b.sizes()) {
    if (o.check_shape) return fail("shape differs");
    Expected<Shape> common = broadcast_shapes(Shape::from_sizes(a.sizes()), Shape::from_sizes(b.sizes()));
    if (!common) return fail("shapes do not broadcast");
    a = a.expand(common->sizes());
    b = b.expand(common->sizes());
  }
  const int64_t n = b.numel();
  if (n == 0) return r;
  const bool exact = !is_floating(a.dtype()) && !is_floating(b.dtype());
  const Tensor x = a.to(DType::F64).contiguous(), y = b.to(DType::F64).contiguous();
  const double* px = reinterpret_cast<const double*>(x.data_bytes());
  const double* py = reinterpret_cast<const double*>(y.data_bytes());
  int64_t bad = 0, worst = 0;
  double worst_err = -1;
  for (int64_t i = 0; i < n; ++i) {
    const double u = px[i], v = py[i];
    bool close;
    double err;
    if (exact) {  // integers and bools: equal or not (doubles would merge values past 2^53)
      close = a.item_int(i) == b.item_int(i);
      err = close ? 0 : std::max(std::fabs(u - v), 1.0);
    } else if (std::isnan(u) || std::isnan(v)) {
      close = std::isnan(u) && std::isnan(v);
      err = close ? 0 : INFINITY;
    } else if (u == v) {  // equal infinities too
      close = true;
      err = 0;
    } else {
      err = std::fabs(u - v);
      close = err <= o.atol + o.rtol * std::fabs(v);
    }
    if (!close) ++bad;
    if (err > worst_err) {
      worst_err = err;
      worst = i;
    }
    if (err > r.max_abs_error) r.max_abs_error = err;
    const double rel = v != 0 ? err / std::fabs(v) : (err == 0 ? 0 : INFINITY);
    if (rel > r.max_rel_error) r.max_rel_error = rel;
  }
  r.worst_index = coordinates(b.sizes(), worst);
  r.mismatch_fraction = static_cast<double>(bad) / static_cast<double>(n);
  if (bad == 0) return r;
  if (o.acceptable_error_percentage && r.mismatch_fraction <= *o.acceptable_error_percentage) return r;
  r.passed = false;
  std::ostringstream why;
  why << bad << " of " << n << " elements beyond rtol " << o.rtol << ", atol " << o.atol;
  r.problem = why.str();
  return r;
}

Expected<VerifyReport> verify(const Graph& g, std::span<const Tensor> inputs, const VerifyOptions& o,
                              std::span<const Tensor> param_values) {
  if (o.acceptable_error_percentage && (*o.acceptable_error_percentage < 0 || *o.acceptable_error_percentage > 1))
    return make_error("verify: acceptable_error_percentage must be in [0, 1], not ", *o.acceptable_error_percentage);
  ScratchDir scratch;
  if (scratch.path().empty()) return make_error("verify: cannot create a temporary directory");
  VerifyReport report;
  report.backend = o.backend == OnnxBackend::Reference ? "onnx.reference" : "onnxruntime (CPUExecutionProvider)";

  // The model: exported here (with intermediates as extra outputs when asked), or given.
  KILN_ASSIGN_OR_RETURN(ExportedModel m, export_graph(g, param_values, o.export_options, o.compare_intermediates));
  std::string model_path = scratch.path() + "/model.onnx";
  std::vector<std::string> exposed;  // intermediate names the model outputs, in order
  if (o.compare_intermediates)
    for (const auto& [v, name] : m.value_names()) exposed.push_back(name);
  if (!o.model_path.empty()) {
    KILN_TRY(check_model_file(o.model_path));
    report.model_path = o.model_path;
    if (o.compare_intermediates) {
      KILN_ASSIGN_OR_RETURN(exposed, expose_values(o.model_path, model_path, exposed));
    } else {
      model_path = o.model_path;
    }
  } else {
    KILN_TRY(m.save(model_path, o.export_options.external_data_threshold));
    report.model_path = "(exported in memory)";
  }

  std::vector<std::vector<Tensor>> sets = {std::vector<Tensor>(inputs.begin(), inputs.end())};
  sets.insert(sets.end(), o.additional_inputs.begin(), o.additional_inputs.end());
  for (size_t s = 0; s < sets.size(); ++s) {
    // kiln's side: the interpreter on copies (the graph may write its inputs), then the
    // written inputs as the write-back outputs the model has after the user outputs.
    std::vector<Tensor> all;
    for (std::span<const Tensor> part : {std::span<const Tensor>(sets[s]), param_values}) {
      for (const Tensor& t : part) {
        Tensor c = Tensor::empty(t.sizes(), t.dtype());
        c.copy_from(t);
        all.push_back(std::move(c));
      }
    }
    if (static_cast<int>(all.size()) != g.num_inputs())
      return make_error("verify: the graph takes ", g.num_inputs(), " inputs, ", all.size(), " given");
    std::unordered_map<const Node*, std::vector<Tensor>> seen;
    InterpreterOptions io;
    if (o.compare_intermediates)
      io.on_node = [&](const Node& n, std::span<const Tensor> r) { seen[&n] = {r.begin(), r.end()}; };
    const Graph& run_graph = o.compare_intermediates ? m.exported_graph() : g;
    KILN_ASSIGN_OR_RETURN(std::vector<Tensor> want, interpret(run_graph, all, io));
    if (!o.compare_intermediates) {
      // The model's write-back outputs hold the inputs' final values.
      for (int i : m.write_back_inputs()) want.push_back(all[static_cast<size_t>(i)]);
    }
    // The model's inputs: the graph inputs that are not initializers, optionally a subset.
    std::vector<Tensor> feed;
    for (int i : m.model_inputs()) feed.push_back(sets[s][static_cast<size_t>(i)]);
    if (o.remained_onnx_input_idx) {
      std::vector<Tensor> kept;
      for (int i : *o.remained_onnx_input_idx) {
        if (i < 0 || static_cast<size_t>(i) >= feed.size())
          return make_error("verify: remained_onnx_input_idx ", i, " is out of range for ", feed.size(), " inputs");
        kept.push_back(feed[static_cast<size_t>(i)]);
      }
      feed = std::move(kept);
    }
    KILN_ASSIGN_OR_RETURN(std::vector<Tensor> got, run_model(model_path, feed, o, m, scratch.path()));
    const size_t num_outputs = m.output_names().size();
    if (got.size() < num_outputs + exposed.size() || want.size() != num_outputs)
      return make_error("verify: the ONNX model gives ", got.size() - exposed.size(), " outputs, kiln ", want.size());
    for (size_t k = 0; k < num_outputs; ++k) {
      OutputReport r = compare_output(got[k], want[k], o);
      r.input_set = static_cast<int>(s);
      r.index = static_cast<int>(k);
      r.name = m.output_names()[k];
      report.passed = report.passed && r.passed;
      report.outputs.push_back(std::move(r));
    }
    if (!o.compare_intermediates || s > 0) continue;
    // Intermediates, in node order: the first that differs names the node.
    std::unordered_map<std::string, size_t> position;
    for (size_t k = 0; k < exposed.size(); ++k) position[exposed[k]] = num_outputs + k;
    for (const auto& [v, name] : m.value_names()) {
      auto it = position.find(name);
      auto ran = seen.find(v->producer());
      if (it == position.end() || ran == seen.end()) continue;
      OutputReport r = compare_output(got[it->second], ran->second[static_cast<size_t>(v->index())], o);
      r.name = name;
      if (!r.passed && report.first_divergent_node.empty()) report.first_divergent_node = print_node(*v->producer());
      report.intermediates.push_back(std::move(r));
    }
  }
  if (!report.first_divergent_node.empty()) report.passed = false;
  return report;
}

Expected<VerifyReport> verify(const Captured& c, std::span<const Tensor> inputs, const VerifyOptions& o) {
  return verify(*c.graph, inputs, o, c.lifted);
}

std::string VerifyReport::to_table() const {
  std::ostringstream s;
  s << "verified against " << backend << "\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-4s %-22s %-18s %-18s %11s %11s %9s  %s\n", "set", "output", "kiln", "onnx",
                "max abs err", "max rel err", "mismatch", "result");
  s << line;
  for (const OutputReport& r : outputs) {
    std::string worst;
    for (int64_t i : r.worst_index) worst += (worst.empty() ? "" : ",") + std::to_string(i);
    std::snprintf(line, sizeof line, "%-4d %-22s %-18s %-18s %11.3g %11.3g %8.2f%%  %s%s%s\n", r.input_set,
                  r.name.c_str(), r.kiln_type.c_str(), r.onnx_type.c_str(), r.max_abs_error, r.max_rel_error,
                  100 * r.mismatch_fraction, r.passed ? "pass" : "FAIL", r.passed ? "" : (": " + r.problem).c_str(),
                  r.passed || worst.empty() ? "" : (" (worst at [" + worst + "])").c_str());
    s << line;
  }
  if (!intermediates.empty()) {
    int failed = 0;
    for (const OutputReport& r : intermediates) failed += r.passed ? 0 : 1;
    s << intermediates.size() << " intermediate values compared, " << failed << " beyond tolerance\n";
    if (!first_divergent_node.empty()) s << "first diverging node: " << first_divergent_node << "\n";
  }
  s << (passed ? "PASS" : "FAIL") << "\n";
  return s.str();
}

}  // namespace kiln::onnx
