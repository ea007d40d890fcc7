// affix shield WHERE [OPTIONS] [-- COMMAND...] | affix shield --off NAME |
// affix show --shield (affix(1), SHIELD). WHERE is resolved against every
// online CPU of the machine (a shield is made from the root cgroup); the
// plan is made before anything is written (shield_plan.cpp), and every
// change goes through the shield's record (shield_apply.cpp). With a
// command, affix's own failures exit 125, as run's do.
#include <cstdio>

#include <fmt/format.h>

#include "machine_tree.hpp"
#include "picture_output.hpp"
#include "picture_overlays.hpp"
#include "svg_painter.hpp"
#include "command_line.hpp"
#include "commands.hpp"
#include "diag.hpp"
#include "error.hpp"
#include "files_os.hpp"
#include "irq.hpp"
#include "launch_output.hpp"
#include "mem_select.hpp"
#include "proc.hpp"
#include "near.hpp"
#include "resolver.hpp"
#include "shield_launch.hpp"
#include "shield_lock.hpp"
#include "shield_machine.hpp"
#include "shield_output.hpp"
#include "shield_status.hpp"
#include "text.hpp"
#include "topology.hpp"

namespace affix {

namespace {

void check_shield_options(const CommandLine& cl) {
  if (cl.off && (cl.isolated || cl.irqs || cl.shield_mem || cl.name))
    throw Error(ErrorKind::Usage, "--off removes a shield; it takes no other option but --dry-run and -v",
                "'affix shield --off NAME' removes shield NAME, whatever it was made with");
}

// Refuses before any write where affix may not write the hierarchy (not root).
void check_may_write(FilesOs& files, const std::string& dir) {
  if (int err = files.writable(dir); err != 0)
    throw Error(ErrorKind::Runtime, fmt::format("cannot write {}: {}; nothing was changed", printable(dir), errno_text(err)),
                "affix shield needs root (affix(1), PERMISSIONS)");
}

std::optional<CpuSet> shield_mems(const CommandLine& cl, const Topology& topo, const Allowed& machine) {
  if (!cl.shield_mem) return std::nullopt;
  PlacementRequest req;
  req.where = cl.request.where;
  req.mem = MemRequest{MemPolicy::Bind, std::nullopt};
  if (!cl.shield_mem->empty()) req.mem->nodes = *parse_mem_selector(*cl.shield_mem).value;  // checked by the parse
  return resolve(req, topo, machine, process_env()).mem_nodes;
}

int shield_off(const CommandLine& cl) {
  const std::string& name = *cl.off;
  if (auto why = bad_shield_name(name)) throw Error(ErrorKind::Usage, fmt::format("invalid shield name '{}': {}", printable(name), *why));
  SysRoot root;
  LinuxFilesOs files(root);
  auto rec = read_record(files, name);
  if (!rec)
    throw Error(ErrorKind::Runtime, fmt::format("no shield named {}", name), "'affix show --shield' lists the shields");
  if (auto st = rec->launcher > 0 ? read_stat(root, proc_dir(rec->launcher)) : std::nullopt;
      st && st->start_time == rec->launcher_start && st->state != 'Z')
    throw Error(ErrorKind::Runtime,
                fmt::format("shield {} is in use: affix {} runs command {} in it, and removes it when that ends", name,
                            rec->launcher, rec->command),
                fmt::format("end the command, or send affix {} SIGTERM (it passes it on)", rec->launcher));
  LinuxIrqOs irqs(root);
  ShieldOs os{files, irqs, linux_os()};
  if (cl.dry_run) {
    std::string out = fmt::format("{}: --off would, last change first:\n", shield_label(*rec));
    for (const auto& line : removal_plan(os, *rec)) out += "  " + line + "\n";
    std::fputs(out.c_str(), stdout);
    return k_exit_ok;
  }
  check_may_write(files, k_record_dir);
  ShieldLock lock(root);
  lock.take();
  // Read again under the lock: another affix may have removed it, or handed
  // it changes, meanwhile.
  rec = read_record(files, name);
  if (!rec)
    throw Error(ErrorKind::Runtime, fmt::format("no shield named {}", name), "'affix show --shield' lists the shields");
  linux_os().hold_signals();
  Removal removal = remove_shield(os, *rec);
  for (const auto& n : removal.notes) print_warning(n);
  if (!removal.left.empty()) {
    std::string left;
    for (const auto& l : removal.left) left += (left.empty() ? "" : "; ") + l;
    throw Error(ErrorKind::Runtime, fmt::format("shield {} was not removed whole: {}", name, left),
                fmt::format("its record {} keeps what is left; 'affix shield --off {}' tries again", record_path(name), name));
  }
  std::fputs(fmt::format("{} removed\n", name).c_str(), stdout);
  return k_exit_ok;
}

int shield_make(const CommandLine& cl) {
  SysRoot root;
  Topology topo = read_topology(root);
  Allowed machine{topo.online, topo.node_set(), std::nullopt, "all-online", "all-nodes"};
  PlacementRequest req;
  req.where = cl.request.where;
  Placement p = resolve_on_machine(root, req, topo, process_env());  // near:DEVICE reads the device first
  for (const auto& w : p.warnings) print_warning(w);
  LinuxFilesOs files(root);
  ShieldMachine m = read_shield_machine(root, files);
  ShieldRequest sr{p.cpus, shield_mems(cl, topo, machine), cl.isolated, cl.irqs, cl.name.value_or("")};
  ShieldPlan plan = plan_shield(m, sr);
  if (cl.dry_run) {
    std::string out = format_plan(plan);
    if (!cl.rest.empty()) {
      std::string words;
      for (const auto& w : cl.rest) words += " " + printable(w);
      out += fmt::format("  then run{} in it, and remove the shield when it ends\n", words);
    }
    std::fputs(out.c_str(), stdout);
    return k_exit_ok;
  }
  check_may_write(files, m.cgroup_root);
  // One shield change at a time: the machine is read again, and the shield
  // planned again, under the lock (another affix shield may have made one).
  ShieldLock lock(root);
  lock.take();
  m = read_shield_machine(root, files);
  plan = plan_shield(m, sr);
  LinuxIrqOs irqs(root);
  LinuxOs& kernel = linux_os();
  ShieldOs os{files, irqs, kernel, &kernel, m.online};
  kernel.hold_signals();  // a shield is made and removed whole
  MadeShield made = make_shield(os, plan, m.online);
  lock.release();
  if (cl.verbose) std::fputs(format_plan(plan).c_str(), stderr);
  for (const auto& w : made.warnings) print_warning(w);
  if (cl.rest.empty()) {
    std::fputs((made.record.name + "\n").c_str(), stdout);
    return k_exit_ok;
  }
  auto self = read_stat(root, "proc/self");
  ShieldRun run = run_in_shield(os, made.record, cl.rest, self ? self->start_time : 0, [&] { lock.take(); });
  lock.release();
  for (const auto& n : run.removal.notes) print_warning(n);
  int status = run.status;
  if (run.exec_error != 0) {
    ExecFailure f = exec_failure(cl.rest.front(), run.exec_error);
    print_error(Error(ErrorKind::Runtime, f.message + removal_phrase(run.removal), f.hint));
    status = f.status;
  }
  if (!run.removal.left.empty()) {
    std::string left;
    for (const auto& l : run.removal.left) left += (left.empty() ? "" : "; ") + l;
    // The command's status stands: it ran, and ended; the message says
    // why the shield stayed.
    print_error(Error(ErrorKind::Runtime, fmt::format("shield {} stayed after the command (exit status {}): {}",
                                                      made.record.name, status, left),
                      fmt::format("its record {} keeps what is left; 'affix shield --off {}' tries again",
                                  record_path(made.record.name), made.record.name)));
  }
  return status;
}

}  // namespace

int command_shield(const Args& args) {
  bool has_command = false;
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--") has_command = true;
  try {
    CommandLine cl = parse_command_line(CommandKind::Shield, args);
    if (cl.help) {
      std::fputs(command_help(CommandKind::Shield).c_str(), stdout);
      return k_exit_ok;
    }
    has_command = !cl.rest.empty();
    check_shield_options(cl);
    return cl.off ? shield_off(cl) : shield_make(cl);
  } catch (const Error& e) {
    print_error(e);
    if (has_command) return k_exit_run_failed;
    return e.kind() == ErrorKind::Runtime ? k_exit_failed : k_exit_usage;
  } catch (const std::exception& e) {
    print_error(Error(ErrorKind::Runtime, fmt::format("internal error: {}", e.what())));
    return has_command ? k_exit_run_failed : k_exit_failed;
  }
}

int command_show_shield(bool json, const std::string& root_dir, const std::optional<std::string>& svg) {
  SysRoot root(root_dir);
  LinuxFilesOs files(root);
  std::vector<std::string> bad;
  std::vector<ShieldRecord> records = read_records(files, bad);
  LinuxIrqOs irqs(root);
  std::vector<ShieldStatus> shields = read_shield_status(root, files, irqs, records);
  for (const auto& b : bad) print_warning(fmt::format("unreadable shield record {}", b));
  if (svg) {
    Picture pic = machine_picture(read_drawn_machine(root), shield_overlay(shields));
    write_picture(*svg, picture_svg(pic, "affix show --shield"));
    if (svg->empty() || *svg == "-") return k_exit_ok;
  }
  std::string out = json ? format_shields_json(shields) : format_shields_text(shields, {});
  std::fputs(out.c_str(), stdout);
  return k_exit_ok;
}

}  // namespace affix
