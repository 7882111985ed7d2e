// The C++ starter kit's library: connects a bot to a Brawl Ladder referee
// (brawl.bot.v1.BotService/Connect, token in the metadata), plays any number of matches on the
// one stream, keeps each seat's whole observation by applying the observation patches, answers
// pings at once (the bot thinks in its own thread), answers the default option itself just
// before a deadline the bot would miss, and reconnects with backoff. See docs/bot-protocol.md.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include <google/protobuf/struct.pb.h>

#include "brawl/bot/v1/bot.pb.h"

namespace brawl {

// Exit statuses of run().
constexpr int kExitDone = 0;          // played the matches asked for
constexpr int kExitRefused = 2;       // the referee refused the token or the Hello
constexpr int kExitUnreachable = 3;   // no referee answered within Config::connect_timeout
constexpr int kExitUsage = 64;        // bad command line

struct Config {
  std::vector<std::string> servers{"127.0.0.1:50051"};  // each reconnect tries the next
  std::string token;                                     // sent as "authorization: Bearer <token>"
  std::vector<std::string> games;                        // empty: every game the token allows
  int max_matches = 1;                                   // seats accepted at once
  int matches = 0;                                       // stop after this many ended (0: never)
  std::chrono::milliseconds connect_timeout{30000};      // give up when no session opens for this long
  std::string observations;                              // append each decision's observation (JSON lines)
  std::string client = "brawl-cpp-kit/1";
  bool tls = false;    // connect with TLS (a referee serving TLS, a ladder behind a TLS ingress)
  std::string ca;      // with TLS: trust this CA file (PEM) instead of the default roots
};

// Reads --server, --token (or $BRAWL_TOKEN), --games, --max-matches, --matches,
// --connect-timeout (e.g. 30s, 500ms), --observations, --tls and --ca; exits with kExitUsage on a
// bad one.
Config parse_flags(int argc, char** argv);

// One decision of one seat.
struct Turn {
  const brawl::bot::v1::DecisionRequest& request;  // options, events, clock
  const std::string& game;                         // "scrumbrawl" or "superfantasybrawl"
  const google::protobuf::Value& observation;      // the seat's whole observation, JSON form
  std::chrono::steady_clock::time_point deadline;  // when the answer is late, by this process's clock
};

// A bot picks one offered option id (and a note) per decision. choose() runs in its own thread
// and may be called for several matches at once.
class Bot {
 public:
  virtual ~Bot() = default;
  virtual std::pair<std::string, std::string> choose(const Turn& turn) = 0;
};

// Plays until config.matches matches ended (or forever); returns the process exit status.
int run(const Config& config, Bot& bot);

// Applies observation_patch ops (RFC 6902 subset) to doc in order; false (with why) on failure.
bool apply_patch(google::protobuf::Value& doc,
                 const google::protobuf::RepeatedPtrField<brawl::bot::v1::PatchOp>& ops,
                 std::string* error);

// Member `name` of an object value, or nullptr.
const google::protobuf::Value* member(const google::protobuf::Value& v, const std::string& name);

}  // namespace brawl
