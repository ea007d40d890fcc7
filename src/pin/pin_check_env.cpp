#include "pin_check_env.hpp"

#include <fmt/format.h>

#include "runtime_env.hpp"
#include "text.hpp"

namespace affix {

EnvCheck check_env(const SysRoot& root, pid_t pid, const EnvExpect& expect) {
  EnvCheck out;
  out.pid = pid;
  std::optional<std::string> environ = read_environ(root, pid);
  if (!environ) return out;
  out.readable = true;
  auto check = [&](const std::pair<std::string, std::string>& var, bool required) {
    std::optional<std::string_view> have = environ_value(*environ, var.first);
    if (!have && !required) return;
    if (have && required) out.have.emplace_back(var.first, std::string(*have));
    std::string named;
    if (have && var.first == expect.gpu_var && expect.names_gpu) {
      GpuNaming n = expect.names_gpu(std::string(*have));
      if (n.same) return;
      named = n.named;
    } else if (have && *have == var.second) {
      return;
    }
    out.wrong.push_back(
        {var.first, have ? std::optional<std::string>(std::string(*have)) : std::nullopt, var.second, named});
  };
  for (const auto& var : expect.required) check(var, true);
  for (const auto& var : expect.if_set) check(var, false);
  out.ok = out.wrong.empty();
  return out;
}

std::string env_check_lines(const EnvCheck& check, const EnvExpect& expect) {
  if (!check.readable) return fmt::format("  {}: environment unknown (its environ cannot be read)\n", check.pid);
  std::string out;
  if (check.ok) {
    std::string vars;
    for (const auto& [name, value] : check.have) vars += fmt::format(" {}={}", name, printable(value));
    return fmt::format("  {}: its environment names {}:{}\n", check.pid, expect.gpu, vars);
  }
  for (const EnvMismatch& m : check.wrong)
    out += !m.named.empty() && m.value
               ? fmt::format("  {}: {}={} names {}, not {}\n", check.pid, m.name, printable(*m.value), m.named,
                             expect.gpu)
               : m.value ? fmt::format("  {}: {}={}, not {} ({})\n", check.pid, m.name, printable(*m.value), m.want, expect.gpu)
                   : fmt::format("  {}: {} unset, not {} ({})\n", check.pid, m.name, m.want, expect.gpu);
  return out;
}

}  // namespace affix
