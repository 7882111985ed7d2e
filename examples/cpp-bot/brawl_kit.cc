#include "brawl_kit.h"

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <queue>
#include <sstream>
#include <thread>

#include <google/protobuf/util/json_util.h>
#include <grpcpp/grpcpp.h>

#include "brawl/bot/v1/bot.grpc.pb.h"

namespace brawl {

namespace v1 = brawl::bot::v1;
using google::protobuf::ListValue;
using google::protobuf::Value;
using Clock = std::chrono::steady_clock;

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

std::string stamp() {
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// The JSON form of the payload set in an Observation: proto field names, every scalar, list and
// map present (docs/bot-protocol.md, "Observation deltas").
bool observation_json(const v1::Observation& obs, Value* out, std::string* error) {
  const auto* oneof = obs.GetDescriptor()->FindOneofByName("payload");
  const auto* field = obs.GetReflection()->GetOneofFieldDescriptor(obs, oneof);
  if (field == nullptr) {
    out->mutable_struct_value();
    return true;
  }
  const auto& payload = obs.GetReflection()->GetMessage(obs, field);
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string json;
  auto status = google::protobuf::util::MessageToJsonString(payload, &json, options);
  if (status.ok()) status = google::protobuf::util::JsonStringToMessage(json, out);
  if (!status.ok()) *error = std::string(status.message());
  return status.ok();
}

std::vector<std::string> pointer(const std::string& path) {
  std::vector<std::string> tokens;
  if (path.empty()) return tokens;
  size_t start = 1;
  while (true) {
    size_t slash = path.find('/', start);
    std::string t = path.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    for (size_t i; (i = t.find("~1")) != std::string::npos;) t.replace(i, 2, "/");
    for (size_t i; (i = t.find("~0")) != std::string::npos;) t.replace(i, 2, "~");
    tokens.push_back(t);
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return tokens;
}

bool index_of(const std::string& t, int size, bool end_ok, int* i) {
  if (t == "-" && end_ok) {
    *i = size;
    return true;
  }
  char* rest = nullptr;
  long n = std::strtol(t.c_str(), &rest, 10);
  *i = static_cast<int>(n);
  return !t.empty() && *rest == '\0' && n >= 0 && n < size + (end_ok ? 1 : 0);
}

// Inserts value into list before index i.
void insert_at(ListValue* list, int i, const Value& value) {
  *list->add_values() = value;
  for (int k = list->values_size() - 1; k > i; --k) list->mutable_values()->SwapElements(k, k - 1);
}

}  // namespace

const Value* member(const Value& v, const std::string& name) {
  if (!v.has_struct_value()) return nullptr;
  auto it = v.struct_value().fields().find(name);
  return it == v.struct_value().fields().end() ? nullptr : &it->second;
}

bool apply_patch(Value& doc, const google::protobuf::RepeatedPtrField<v1::PatchOp>& ops, std::string* error) {
  for (const auto& op : ops) {
    Value value;
    if (op.op() != "remove") {
      auto status = google::protobuf::util::JsonStringToMessage(op.value(), &value);
      if (!status.ok()) {
        *error = "patch value at " + op.path() + " is not JSON: " + std::string(status.message());
        return false;
      }
    }
    auto tokens = pointer(op.path());
    if (tokens.empty()) {
      if (op.op() == "remove") return *error = "cannot remove the whole observation", false;
      doc = value;
      continue;
    }
    Value* parent = &doc;
    for (size_t k = 0; k + 1 < tokens.size(); ++k) {
      if (parent->has_struct_value()) {
        auto* fields = parent->mutable_struct_value()->mutable_fields();
        auto it = fields->find(tokens[k]);
        if (it == fields->end()) return *error = "patch path " + op.path() + " does not exist", false;
        parent = &it->second;
      } else if (parent->has_list_value()) {
        int i;
        if (!index_of(tokens[k], parent->list_value().values_size(), false, &i))
          return *error = "patch path " + op.path() + " does not exist", false;
        parent = parent->mutable_list_value()->mutable_values(i);
      } else {
        return *error = "patch path " + op.path() + " does not exist", false;
      }
    }
    const std::string& last = tokens.back();
    if (parent->has_struct_value()) {
      auto* fields = parent->mutable_struct_value()->mutable_fields();
      if (op.op() == "add" || op.op() == "replace") {
        (*fields)[last] = value;
      } else if (op.op() == "remove") {
        fields->erase(last);
      } else {
        return *error = "unknown patch op " + op.op(), false;
      }
    } else if (parent->has_list_value()) {
      auto* list = parent->mutable_list_value();
      int i;
      bool add = op.op() == "add";
      if (!index_of(last, list->values_size(), add, &i))
        return *error = "patch path " + op.path() + " does not exist", false;
      if (add) {
        insert_at(list, i, value);
      } else if (op.op() == "replace") {
        *list->mutable_values(i) = value;
      } else if (op.op() == "remove") {
        list->mutable_values()->erase(list->mutable_values()->begin() + i);
      } else {
        return *error = "unknown patch op " + op.op(), false;
      }
    } else {
      return *error = "patch path " + op.path() + " does not exist", false;
    }
  }
  return true;
}

Config parse_flags(int argc, char** argv) {
  Config c;
  if (const char* t = std::getenv("BRAWL_TOKEN")) c.token = t;
  for (int i = 1; i < argc; ++i) {
    std::string key = argv[i];
    if (key == "--tls") {
      c.tls = true;
      continue;
    }
    if (i + 1 >= argc) {
      std::cerr << "error: " << key << " needs a value (or is unknown)\n";
      std::exit(kExitUsage);
    }
    std::string value = argv[++i];
    try {
      if (key == "--server") c.servers = split(value);
      else if (key == "--token") c.token = value;
      else if (key == "--games") c.games = split(value);
      else if (key == "--max-matches") c.max_matches = std::stoi(value);
      else if (key == "--matches") c.matches = std::stoi(value);
      else if (key == "--observations") c.observations = value;
      else if (key == "--ca") c.ca = value;
      else if (key == "--connect-timeout") {
        size_t used = 0;
        double amount = std::stod(value, &used);
        std::string unit = value.substr(used);
        if (unit != "s" && unit != "ms" && !unit.empty()) throw std::invalid_argument(unit);
        c.connect_timeout = std::chrono::milliseconds(static_cast<long>(unit == "ms" ? amount : amount * 1000));
      } else {
        std::cerr << "error: unknown argument " << key << "\n";
        std::exit(kExitUsage);
      }
    } catch (const std::exception&) {
      std::cerr << "error: bad value for " << key << ": " << value << "\n";
      std::exit(kExitUsage);
    }
  }
  if (!c.ca.empty() && !c.tls) {
    std::cerr << "error: --ca needs --tls\n";
    std::exit(kExitUsage);
  }
  return c;
}

namespace {

// One open stream, shared by the reader (run), the bot's threads and the clock thread.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(const Config& config, Bot& bot) : config_(config), bot_(bot) {}

  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReaderWriter<v1::ConnectRequest, v1::ConnectResponse>> stream;

  void send(const v1::ConnectRequest& m) {
    std::lock_guard<std::mutex> lock(send_mu_);
    if (!closed_) stream->Write(m);
  }

  // Stops writes, waits for the bot's threads and the clock thread.
  void close() {
    {
      std::lock_guard<std::mutex> lock(send_mu_);
      closed_ = true;
    }
    {
      std::unique_lock<std::mutex> lock(mu_);
      stopping_ = true;
      cv_.notify_all();
      cv_.wait(lock, [this] { return thinking_ == 0; });
    }
    if (clock_.joinable()) clock_.join();
  }

  void start_clock() {
    clock_ = std::thread([self = shared_from_this()] { self->clock_loop(); });
  }

  void match_start(const v1::MatchStart& start) {
    Value doc;
    std::string error;
    if (!observation_json(start.observation(), &doc, &error))
      std::cerr << "match " << start.match_id() << ": " << error << "\n";
    std::lock_guard<std::mutex> lock(mu_);
    observations_[key(start.match_id(), start.seat())] = std::make_shared<Value>(std::move(doc));
    games_[start.match_id()] = start.game();
  }

  void match_end(const v1::MatchEnd& end) {
    std::lock_guard<std::mutex> lock(mu_);
    observations_.erase(key(end.match_id(), end.seat()));
  }

  void decide(const v1::DecisionRequest& request) {
    auto received = Clock::now();
    auto pending = std::make_shared<Pending>();
    pending->request = request;
    std::string error;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto& slot = observations_[key(request.match_id(), request.seat())];
      // A new document per decision: the bot may still be reading the previous one.
      auto doc = slot ? std::make_shared<Value>(*slot) : std::make_shared<Value>();
      bool ok = request.has_observation() ? observation_json(request.observation(), doc.get(), &error)
                                          : apply_patch(*doc, request.observation_patch(), &error);
      if (!ok) doc = std::make_shared<Value>();
      slot = doc;
      pending->observation = doc;
      pending->game = games_[request.match_id()];
      auto budget = std::chrono::seconds(request.deadline().seconds()) +
                    std::chrono::nanoseconds(request.deadline().nanos());
      // The deadline counts from when the referee sent the request; a request read late here has
      // less left. The referee's wall-clock deadline says how much less, trusted by up to a second,
      // as clocks a second apart would cost every decision that much.
      auto wall = std::chrono::system_clock::time_point(
          std::chrono::duration_cast<std::chrono::system_clock::duration>(
              std::chrono::seconds(request.deadline_time().seconds()) +
              std::chrono::nanoseconds(request.deadline_time().nanos())));
      auto late = budget - std::chrono::duration_cast<std::chrono::nanoseconds>(wall - std::chrono::system_clock::now());
      if (late > std::chrono::nanoseconds(0) && late < std::chrono::seconds(1)) budget -= late;
      auto margin = std::min<Clock::duration>(budget / 10, std::chrono::milliseconds(100));
      pending->deadline = received + std::chrono::duration_cast<Clock::duration>(budget);
      timers_.push({pending->deadline - margin, pending});
      ++thinking_;
      cv_.notify_all();
    }
    if (!error.empty()) std::cerr << "match " << request.match_id() << ": " << error << "\n";
    if (!config_.observations.empty()) dump(*pending);
    std::thread([self = shared_from_this(), pending] {
      Turn turn{pending->request, pending->game, *pending->observation, pending->deadline};
      std::pair<std::string, std::string> choice;
      try {
        choice = self->bot_.choose(turn);
      } catch (const std::exception& e) {
        std::cerr << "match " << pending->request.match_id() << ": the bot threw: " << e.what() << "\n";
        choice = {pending->request.default_option_id(), "the bot threw: default"};
      }
      self->answer(*pending, choice.first, choice.second);
      std::lock_guard<std::mutex> lock(self->mu_);
      --self->thinking_;
      self->cv_.notify_all();
    }).detach();
  }

 private:
  struct Pending {
    v1::DecisionRequest request;
    std::shared_ptr<const Value> observation;
    std::string game;
    Clock::time_point deadline;
    std::once_flag answered;
  };
  struct Timer {
    Clock::time_point at;
    std::shared_ptr<Pending> pending;
    bool operator<(const Timer& o) const { return at > o.at; }  // earliest first
  };

  static std::string key(const std::string& match, int seat) { return match + "/" + std::to_string(seat); }

  void answer(Pending& p, const std::string& option, const std::string& note) {
    std::call_once(p.answered, [&] {
      v1::ConnectRequest m;
      auto* a = m.mutable_answer();
      a->set_match_id(p.request.match_id());
      a->set_decision_id(p.request.decision_id());
      a->set_option_id(option);
      a->set_note(note);
      send(m);
    });
  }

  // Answers the default option for any decision still unanswered just before its deadline.
  void clock_loop() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stopping_) {
      if (timers_.empty()) {
        cv_.wait(lock);
        continue;
      }
      auto next = timers_.top();
      if (Clock::now() < next.at) {
        cv_.wait_until(lock, next.at);
        continue;
      }
      timers_.pop();
      lock.unlock();
      answer(*next.pending, next.pending->request.default_option_id(), "out of time: default");
      lock.lock();
    }
  }

  void dump(const Pending& p) {
    Value line;
    auto* fields = line.mutable_struct_value()->mutable_fields();
    (*fields)["match_id"].set_string_value(p.request.match_id());
    (*fields)["seat"].set_number_value(p.request.seat());
    (*fields)["decision_number"].set_number_value(p.request.decision_number());
    (*fields)["observation"] = *p.observation;
    std::string json;
    (void)google::protobuf::util::MessageToJsonString(line, &json);
    static std::mutex dump_mu;
    std::lock_guard<std::mutex> lock(dump_mu);
    std::ofstream(config_.observations, std::ios::app) << json << "\n";
  }

  const Config& config_;
  Bot& bot_;
  std::mutex send_mu_;
  bool closed_ = false;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  int thinking_ = 0;
  std::map<std::string, std::shared_ptr<Value>> observations_;
  std::map<std::string, std::string> games_;
  std::priority_queue<Timer> timers_;
  std::thread clock_;
};

struct Result {
  bool done = false;      // the asked-for matches are over
  bool welcomed = false;  // a session was open on this stream
  grpc::Status status;
};

Result connect_once(const Config& config, Bot& bot, const std::string& server,
                    const std::shared_ptr<grpc::ChannelCredentials>& credentials, int* finished) {
  Result r;
  auto channel = grpc::CreateChannel(server, credentials);
  auto stub = v1::BotService::NewStub(channel);
  auto s = std::make_shared<Session>(config, bot);
  s->context.AddMetadata("authorization", "Bearer " + config.token);
  s->stream = stub->Connect(&s->context);
  s->start_clock();
  v1::ConnectRequest hello;
  for (const auto& g : config.games) hello.mutable_hello()->add_games(g);
  hello.mutable_hello()->set_max_matches(config.max_matches);
  hello.mutable_hello()->set_client(config.client);
  hello.mutable_hello()->set_batching(true);
  s->send(hello);
  v1::ConnectResponse msg;
  while (!r.done && s->stream->Read(&msg)) {
    std::vector<const v1::ConnectResponse*> items;
    if (msg.has_batch()) {
      for (const auto& m : msg.batch().messages()) items.push_back(&m);
    } else {
      items.push_back(&msg);
    }
    for (const auto* m : items) {
      switch (m->message_case()) {
        case v1::ConnectResponse::kWelcome: {
          r.welcomed = true;
          std::string games;
          for (const auto& g : m->welcome().games()) games += (games.empty() ? "" : ",") + g;
          std::cout << stamp() << " connected as " << m->welcome().bot_name() << " ("
                    << m->welcome().session_id() << "), games " << games << std::endl;
          break;
        }
        case v1::ConnectResponse::kPing: {
          v1::ConnectRequest pong;
          pong.mutable_pong()->set_ping_id(m->ping().ping_id());
          s->send(pong);
          break;
        }
        case v1::ConnectResponse::kMatchStart:
          s->match_start(m->match_start());
          std::cout << stamp() << " match " << m->match_start().match_id() << ": " << m->match_start().game()
                    << ", seat " << m->match_start().seat() << (m->match_start().resumed() ? " (resumed)" : "")
                    << std::endl;
          break;
        case v1::ConnectResponse::kDecisionRequest:
          s->decide(m->decision_request());
          break;
        case v1::ConnectResponse::kMatchEnd: {
          const auto& end = m->match_end();
          s->match_end(end);
          int seat = end.seat();
          int rank = seat < end.outcome().ranks_size() ? end.outcome().ranks(seat) : 0;
          std::cout << stamp() << " match " << end.match_id() << " over: rank " << rank << " ("
                    << end.outcome().reason() << ")" << std::endl;
          if (config.matches > 0 && ++*finished >= config.matches) r.done = true;
          break;
        }
        case v1::ConnectResponse::kError:
          std::cerr << "referee error " << v1::ErrorCode_Name(m->error().code()) << ": " << m->error().message()
                    << "\n";
          break;
        default:
          break;
      }
      if (r.done) break;
    }
  }
  s->close();
  if (r.done) {
    s->context.TryCancel();
    s->stream->Finish();
    return r;
  }
  r.status = s->stream->Finish();
  if (r.status.ok()) r.status = grpc::Status(grpc::StatusCode::UNAVAILABLE, "the referee closed the stream");
  return r;
}

}  // namespace

int run(const Config& config, Bot& bot) {
  if (config.token.empty()) {
    std::cerr << "error: no token (pass --token or set BRAWL_TOKEN)\n";
    return kExitRefused;
  }
  if (config.servers.empty()) {
    std::cerr << "error: no referee address (--server host:port)\n";
    return kExitUsage;
  }
  std::string all;
  for (const auto& s : config.servers) all += (all.empty() ? "" : ",") + s;
  auto credentials = grpc::InsecureChannelCredentials();
  if (config.tls) {
    grpc::SslCredentialsOptions options;  // empty roots: gRPC's default roots
    if (!config.ca.empty()) {
      std::ifstream in(config.ca);
      std::stringstream pem;
      pem << in.rdbuf();
      if (!in || pem.str().empty()) {
        std::cerr << "error: cannot read --ca " << config.ca << "\n";
        return kExitUsage;
      }
      options.pem_root_certs = pem.str();
    }
    credentials = grpc::SslCredentials(options);
  }
  int finished = 0;
  auto delay = std::chrono::milliseconds(200);
  auto last_up = Clock::now();
  for (size_t attempt = 0;; ++attempt) {
    Result r = connect_once(config, bot, config.servers[attempt % config.servers.size()], credentials, &finished);
    if (r.done) return kExitDone;
    auto code = r.status.error_code();
    if (code == grpc::StatusCode::UNAUTHENTICATED || code == grpc::StatusCode::FAILED_PRECONDITION) {
      std::cerr << "error: the referee refused the bot: " << r.status.error_message() << "\n";
      return kExitRefused;
    }
    if (r.welcomed) {
      last_up = Clock::now();
      delay = std::chrono::milliseconds(200);
    }
    if (Clock::now() - last_up >= config.connect_timeout) {
      std::cerr << "error: cannot reach the referee at " << all << " (gave up after "
                << config.connect_timeout.count() / 1000.0 << " s): " << r.status.error_message() << "\n";
      return kExitUnreachable;
    }
    std::cerr << "stream broke (" << code << ": " << r.status.error_message() << "); reconnecting in "
              << delay.count() << " ms\n";
    std::this_thread::sleep_for(delay);
    delay = std::min(delay * 2, std::chrono::milliseconds(5000));
  }
}

}  // namespace brawl
