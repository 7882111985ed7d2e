// The C++ "hello bot": plays every game with one simple rule.
//
// Super Fantasy Brawl: the option that hits hardest (its params' `strength`), else the first.
// ScrumBrawl: the first attack, else the first move, else the first option. The note says which
// round the bot saw (from the observation the kit rebuilt from the referee's patches).
//
//   hello-bot --server 127.0.0.1:50051 --token "$BRAWL_TOKEN" --games scrumbrawl
#include <string>
#include <utility>

#include "brawl_kit.h"

namespace {

// Higher is better; ties go to the earlier option.
int score(const std::string& game, const brawl::bot::v1::Option& option) {
  if (game == "superfantasybrawl") return option.params().superfantasybrawl().strength();
  if (game == "scrumbrawl") {
    if (option.kind() == "attack") return 2;
    if (option.kind() == "move") return 1;
  }
  return 0;
}

class HelloBot : public brawl::Bot {
 public:
  std::pair<std::string, std::string> choose(const brawl::Turn& turn) override {
    const auto& options = turn.request.options();
    int best = 0;
    for (int i = 1; i < options.size(); ++i) {
      if (score(turn.game, options[i]) > score(turn.game, options[best])) best = i;
    }
    const auto* round = brawl::member(turn.observation, "round");
    int r = round != nullptr ? static_cast<int>(round->number_value()) : 0;
    return {options[best].id(), "cpp: round " + std::to_string(r)};
  }
};

}  // namespace

int main(int argc, char** argv) {
  brawl::Config config = brawl::parse_flags(argc, argv);
  HelloBot bot;
  return brawl::run(config, bot);
}
