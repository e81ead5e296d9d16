// kiln ops: prints the op table, one op a line: name, traits, schema.
#include <cstdio>
#include <string>

#include "command_line.h"
#include "commands.h"
#include "ops/op_info.h"

namespace kiln::cli {

int cmd_ops(const Args& args) {
  CommandLine cl("ops", "usage: kiln ops\n");
  cl.files(0, 0, "no arguments");
  if (std::optional<int> rc = cl.parse(args)) return *rc;
  std::printf("%-30s %-24s %s\n", "op", "traits", "schema");
  for (const OpInfo& op : all_ops())
    std::printf("%-30s %-24s %s\n", std::string(op.name()).c_str(), traits_to_string(op.traits).c_str(),
                op.schema.to_string().c_str());
  std::printf("%zu ops\n", all_ops().size());
  return 0;
}

}  // namespace kiln::cli
