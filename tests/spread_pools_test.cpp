// run --spread over a command that sets its own CPUs (spread_pools.hpp).
#include <catch2/catch.hpp>

#include <optional>
#include <vector>

#include "spread_pools.hpp"

using namespace affix;

namespace {

std::optional<unsigned> none() { return std::nullopt; }

}  // namespace

TEST_CASE("spread pools: threads of the main thread and of placed threads go round-robin over the selection") {
  SpreadPools pools(SpreadPlan{{2, 0, 1}, 1});  // --order: 2 first
  pools.start(100, {0, 1, 2});
  CHECK(pools.place(100, 101, {0, 1, 2}) == 2u);
  CHECK(pools.place(101, 102, {2}) == 0u);  // made by a thread affix put on 2: the same round
  CHECK(pools.place(102, 103, {0}) == 1u);
  CHECK(pools.place(100, 104, {0, 1, 2}) == 2u);
}

TEST_CASE("spread pools: a creator the command bound itself spreads within its own list") {
  SpreadPools pools(SpreadPlan{{0, 1, 2, 3}, 1});
  pools.start(100, {0, 1, 2, 3});
  // taskset -c 1 before the exec: the main thread's list is 1.
  CHECK(pools.place(100, 101, {1}) == 1u);
  CHECK(pools.place(100, 102, {1}) == 1u);
  CHECK(pools.place(101, 103, {1}) == 1u);  // and the threads those threads make
  // A thread that binds itself to 2-3 later: its threads go round-robin there.
  CHECK(pools.place(102, 104, {2, 3}) == 2u);
  CHECK(pools.place(102, 105, {2, 3}) == 3u);
  CHECK(pools.place(104, 106, {2}) == 2u);  // placed by affix: the 2-3 round goes on
}

TEST_CASE("spread pools: a list with no CPU of the selection is left as it is") {
  SpreadPools pools(SpreadPlan{{0}, 1});
  pools.start(100, {0});
  CHECK(pools.place(100, 101, {1}) == none());
  CHECK(pools.place(101, 102, {1}) == none());
  // The main thread bound back to the selection: spread again.
  CHECK(pools.place(100, 103, {0}) == 0u);
}

TEST_CASE("spread pools: N per CPU within a narrowed list, counted apart from the selection's round") {
  SpreadPools pools(SpreadPlan{{0, 1, 2, 3}, 2});
  pools.start(100, {0, 1, 2, 3});
  CHECK(pools.place(100, 101, {0, 1, 2, 3}) == 0u);
  CHECK(pools.place(101, 102, {0}) == 0u);
  CHECK(pools.place(100, 103, {0, 1, 2, 3}) == 1u);
  pools.start(200, {0, 1, 2, 3});  // (a second main thread: the round of 1-3 is its own)
  CHECK(pools.place(200, 201, {1, 3}) == 1u);
  CHECK(pools.place(200, 202, {1, 3}) == 1u);
  CHECK(pools.place(200, 203, {1, 3}) == 3u);
  CHECK(pools.place(100, 104, {0, 1, 2, 3}) == 1u);  // the selection's round goes on where it was
}

TEST_CASE("spread pools: an unknown creator (or a reused TID) is judged by the list alone") {
  SpreadPools pools(SpreadPlan{{0, 1}, 1});
  pools.start(100, {0, 1});
  CHECK(pools.place(0, 101, {0, 1}) == 0u);  // the whole selection: the selection's round
  CHECK(pools.place(0, 102, {1}) == 1u);
  pools.forget(101);
  CHECK(pools.place(101, 103, {0, 1}) == 1u);  // 101 gone: its number judged afresh
}
