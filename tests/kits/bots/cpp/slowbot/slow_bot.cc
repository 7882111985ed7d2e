// A bot that thinks past every deadline: the kit must answer the default option in time for it.
#include <thread>

#include "brawl_kit.h"

class SlowBot : public brawl::Bot {
 public:
  std::pair<std::string, std::string> choose(const brawl::Turn& turn) override {
    std::this_thread::sleep_until(turn.deadline + std::chrono::seconds(2));
    return {turn.request.options(0).id(), "cpp: too late"};
  }
};

int main(int argc, char** argv) {
  SlowBot bot;
  return brawl::run(brawl::parse_flags(argc, argv), bot);
}
