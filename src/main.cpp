#include "commands.hpp"

int main(int argc, char** argv) { return affix::main_entry(argc, argv); }
