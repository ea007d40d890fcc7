#include "draw_box.hpp"

namespace affix {

const char* box_kind_class(BoxKind kind) {
  switch (kind) {
    case BoxKind::Machine: return "machine";
    case BoxKind::Package: return "package";
    case BoxKind::Node: return "node";
    case BoxKind::Die: return "die";
    case BoxKind::Llc: return "llc";
    case BoxKind::Core: return "core";
    case BoxKind::Cpu: return "cpu";
    case BoxKind::Device: return "device";
    case BoxKind::Memory: return "node cpuless";
    case BoxKind::Group: return "group";
    case BoxKind::Collapsed: return "collapsed";
  }
  return "group";
}

unsigned mark_bit(Mark m) { return static_cast<unsigned>(m); }

const std::vector<MarkStyle>& mark_styles() {
  // Okabe and Ito's palette (2008), told apart with protanopia,
  // deuteranopia and tritanopia; affix(1), PICTURES, "Colours".
  static const std::vector<MarkStyle> styles = {
      {Mark::Chosen, "chosen", "#0072B2", "chosen: the CPUs the placement gets", "*"},
      {Mark::Ran, "ran", "#E69F00", "ran: a thread's last CPU", "@"},
      {Mark::Dropped, "dropped", "#D55E00", "dropped: in WHERE but left out (why: on hover)", "x"},
      {Mark::Shield, "shield", "#CC79A7", "shield: a shield's CPU", "#"},
      {Mark::Allowed, "allowed", "#56B4E9", "allowed: the process may run there", "+"},
      {Mark::Irq, "irq", "#F0E442", "irq: interrupts taken (data-count)", "!"},
      {Mark::Memory, "memory", "#009E73", "memory: a node whose pages are used", "m"},
  };
  return styles;
}

}  // namespace affix
