package brawl.kit;

import brawl.bot.v1.Bot.Answer;
import brawl.bot.v1.Bot.ConnectRequest;
import brawl.bot.v1.Bot.ConnectResponse;
import brawl.bot.v1.Bot.DecisionRequest;
import brawl.bot.v1.Bot.Hello;
import brawl.bot.v1.Bot.MatchEnd;
import brawl.bot.v1.Bot.MatchStart;
import brawl.bot.v1.Bot.Observation;
import brawl.bot.v1.Bot.Pong;
import brawl.bot.v1.BotServiceGrpc;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import java.io.File;
import java.io.FileWriter;
import java.io.IOException;
import java.io.Writer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The Java starter kit's library: connects a bot to a Brawl Ladder referee
 * (brawl.bot.v1.BotService/Connect, token in the metadata), plays any number of matches on the
 * one stream, keeps each seat's whole observation by applying the observation patches, answers
 * pings at once (the bot thinks on a worker thread), answers the default option itself just
 * before a deadline the bot would miss, and reconnects with backoff. See docs/bot-protocol.md.
 */
public final class BrawlKit {
  /** Exit statuses of {@link #run}. */
  public static final int EXIT_DONE = 0, EXIT_REFUSED = 2, EXIT_UNREACHABLE = 3, EXIT_USAGE = 64;

  private BrawlKit() {}

  /** What run needs; {@link #parseFlags} fills it from the command line. */
  public static final class Config {
    public List<String> servers = List.of("127.0.0.1:50051"); // each reconnect tries the next
    public String token = System.getenv().getOrDefault("BRAWL_TOKEN", "");
    public List<String> games = List.of(); // empty: every game the token allows
    public int maxMatches = 1; // seats accepted at once
    public int matches = 0; // stop after this many matches ended (0: never)
    public long connectTimeoutMillis = 30_000; // give up when no session opens for this long
    public String observations = ""; // append each decision's observation here (JSON lines)
    public String client = "brawl-java-kit/1";
    public boolean tls = false; // connect with TLS (a referee serving TLS, a ladder behind a TLS ingress)
    public String ca = ""; // with TLS: trust this CA file (PEM) instead of the system's roots
  }

  /** One decision of one seat. */
  public static final class Turn {
    /** Options, events, clock: answer one of {@code request.getOptionsList()}' ids. */
    public final DecisionRequest request;
    /** "scrumbrawl" or "superfantasybrawl". */
    public final String game;
    /** The seat's whole observation, JSON form (proto field names); do not change it. */
    public final JsonObject observation;
    /** When the answer is late, as System.nanoTime(). */
    public final long deadlineNanos;

    Turn(DecisionRequest request, String game, JsonObject observation, long deadlineNanos) {
      this.request = request;
      this.game = game;
      this.observation = observation;
      this.deadlineNanos = deadlineNanos;
    }

    /** Milliseconds until the answer is late. */
    public long millisLeft() {
      return (deadlineNanos - System.nanoTime()) / 1_000_000;
    }
  }

  /** A bot: one offered option id (and a note) per decision; called from several threads. */
  public interface Bot {
    /** Returns {option id, note}. */
    String[] choose(Turn turn);
  }

  /**
   * Reads --server, --token (or $BRAWL_TOKEN), --games, --max-matches, --matches, --connect-timeout,
   * --observations, --tls and --ca.
   */
  public static Config parseFlags(String[] args) {
    Config c = new Config();
    for (int i = 0; i < args.length; i += 2) {
      String key = args[i];
      if (key.equals("--tls")) {
        c.tls = true;
        i--;
        continue;
      }
      if (i + 1 >= args.length) usage(key + " needs a value (or is unknown)");
      String value = args[i + 1];
      try {
        switch (key) {
          case "--server": c.servers = split(value); break;
          case "--token": c.token = value; break;
          case "--games": c.games = split(value); break;
          case "--max-matches": c.maxMatches = Integer.parseInt(value); break;
          case "--matches": c.matches = Integer.parseInt(value); break;
          case "--observations": c.observations = value; break;
          case "--ca": c.ca = value; break;
          case "--connect-timeout":
            c.connectTimeoutMillis = value.endsWith("ms")
                ? Long.parseLong(value.substring(0, value.length() - 2))
                : Math.round(Double.parseDouble(value.replaceAll("s$", "")) * 1000);
            break;
          default: usage("unknown argument " + key);
        }
      } catch (NumberFormatException e) {
        usage("bad value for " + key + ": " + value);
      }
    }
    if (!c.ca.isEmpty() && !c.tls) usage("--ca needs --tls");
    return c;
  }

  private static void usage(String why) {
    System.err.println("error: " + why);
    System.exit(EXIT_USAGE);
  }

  private static List<String> split(String s) {
    List<String> out = new ArrayList<>();
    for (String p : s.split(",")) if (!p.isBlank()) out.add(p.trim());
    return out;
  }

  private static void log(String line) {
    System.out.println(Instant.now() + " " + line);
  }

  /** Plays until config.matches matches ended (or forever); returns the process exit status. */
  public static int run(Config config, Bot bot) {
    if (config.token.isEmpty()) {
      System.err.println("error: no token (pass --token or set BRAWL_TOKEN)");
      return EXIT_REFUSED;
    }
    if (config.servers.isEmpty()) {
      System.err.println("error: no referee address (--server host:port)");
      return EXIT_USAGE;
    }
    int[] finished = {0};
    long delay = 200;
    long lastUp = System.nanoTime();
    for (int attempt = 0; ; attempt++) {
      Session s = new Session(config, bot, finished);
      s.run(config.servers.get(attempt % config.servers.size()));
      if (s.done) return EXIT_DONE;
      Status.Code code = s.status.getCode();
      String why = s.status.getDescription() != null ? s.status.getDescription() : code.toString();
      if (code == Status.Code.UNAUTHENTICATED || code == Status.Code.FAILED_PRECONDITION) {
        System.err.println("error: the referee refused the bot: " + why);
        return EXIT_REFUSED;
      }
      if (code == Status.Code.INVALID_ARGUMENT) {
        System.err.println("error: " + why);
        return EXIT_USAGE;
      }
      if (s.welcomed) {
        lastUp = System.nanoTime();
        delay = 200;
      }
      if ((System.nanoTime() - lastUp) / 1_000_000 >= config.connectTimeoutMillis) {
        System.err.printf("error: cannot reach the referee at %s (gave up after %.1f s): %s%n",
            String.join(",", config.servers), config.connectTimeoutMillis / 1000.0, why);
        return EXIT_UNREACHABLE;
      }
      System.err.printf("stream broke (%s: %s); reconnecting in %d ms%n", code, why, delay);
      try {
        Thread.sleep(delay);
      } catch (InterruptedException e) {
        return EXIT_DONE;
      }
      delay = Math.min(delay * 2, 5000);
    }
  }

  private static final ExecutorService THINKERS = Executors.newCachedThreadPool(r -> daemon(r, "brawl-bot"));
  private static final ScheduledExecutorService CLOCK =
      Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "brawl-clock"));

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  /** One stream. */
  private static final class Session implements StreamObserver<ConnectResponse> {
    final Config config;
    final Bot bot;
    final int[] finished;
    final CountDownLatch ended = new CountDownLatch(1);
    final Map<String, JsonObject> observations = new ConcurrentHashMap<>();
    final Map<String, String> games = new ConcurrentHashMap<>();
    StreamObserver<ConnectRequest> out;
    volatile boolean done, welcomed, closed;
    Status status = Status.OK;

    Session(Config config, Bot bot, int[] finished) {
      this.config = config;
      this.bot = bot;
      this.finished = finished;
    }

    void run(String server) {
      ManagedChannel channel;
      if (!config.tls) {
        channel = ManagedChannelBuilder.forTarget(server).usePlaintext().build();
      } else if (config.ca.isEmpty()) {
        channel = ManagedChannelBuilder.forTarget(server).useTransportSecurity().build(); // the system's roots
      } else {
        try {
          channel = NettyChannelBuilder.forTarget(server)
              .sslContext(GrpcSslContexts.forClient().trustManager(new File(config.ca)).build()).build();
        } catch (IOException | RuntimeException e) {
          status = Status.INVALID_ARGUMENT.withDescription("cannot use --ca " + config.ca + ": " + e.getMessage());
          return;
        }
      }
      Metadata headers = new Metadata();
      headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + config.token);
      BotServiceGrpc.BotServiceStub stub =
          BotServiceGrpc.newStub(channel).withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
      out = stub.connect(this);
      Hello.Builder hello = Hello.newBuilder().addAllGames(config.games).setMaxMatches(config.maxMatches)
          .setClient(config.client).setBatching(true);
      send(ConnectRequest.newBuilder().setHello(hello).build());
      try {
        ended.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      closed = true;
      channel.shutdownNow();
    }

    synchronized void send(ConnectRequest m) {
      if (!closed) out.onNext(m);
    }

    @Override
    public void onNext(ConnectResponse msg) {
      List<ConnectResponse> items = msg.hasBatch() ? msg.getBatch().getMessagesList() : List.of(msg);
      for (ConnectResponse m : items) {
        if (done) return;
        handle(m);
      }
    }

    @Override
    public void onError(Throwable t) {
      status = Status.fromThrowable(t);
      ended.countDown();
    }

    @Override
    public void onCompleted() {
      status = Status.UNAVAILABLE.withDescription("the referee closed the stream");
      ended.countDown();
    }

    private void handle(ConnectResponse m) {
      switch (m.getMessageCase()) {
        case WELCOME:
          welcomed = true;
          log("connected as " + m.getWelcome().getBotName() + " (" + m.getWelcome().getSessionId() + "), games "
              + String.join(",", m.getWelcome().getGamesList()));
          break;
        case PING:
          send(ConnectRequest.newBuilder().setPong(Pong.newBuilder().setPingId(m.getPing().getPingId())).build());
          break;
        case MATCH_START: {
          MatchStart st = m.getMatchStart();
          observations.put(st.getMatchId() + "/" + st.getSeat(), observationJson(st.getMatchId(), st.getObservation()));
          games.put(st.getMatchId(), st.getGame());
          log("match " + st.getMatchId() + ": " + st.getGame() + ", seat " + st.getSeat()
              + (st.getResumed() ? " (resumed)" : ""));
          break;
        }
        case DECISION_REQUEST:
          decide(m.getDecisionRequest());
          break;
        case MATCH_END: {
          MatchEnd e = m.getMatchEnd();
          observations.remove(e.getMatchId() + "/" + e.getSeat());
          int rank = e.getSeat() < e.getOutcome().getRanksCount() ? e.getOutcome().getRanks(e.getSeat()) : 0;
          log("match " + e.getMatchId() + " over: rank " + rank + " (" + e.getOutcome().getReason() + ")");
          if (config.matches > 0 && ++finished[0] >= config.matches) {
            done = true;
            synchronized (this) {
              closed = true;
              out.onCompleted();
            }
            ended.countDown();
          }
          break;
        }
        case ERROR:
          System.err.println("referee error " + m.getError().getCode() + ": " + m.getError().getMessage());
          break;
        default:
          break;
      }
    }

    private void decide(DecisionRequest req) {
      long received = System.nanoTime();
      String key = req.getMatchId() + "/" + req.getSeat();
      JsonObject doc;
      if (req.hasObservation()) {
        doc = observationJson(req.getMatchId(), req.getObservation()); // a full_observations session
      } else {
        // A new document per decision: the bot may still be reading the previous one.
        JsonObject base = observations.getOrDefault(key, new JsonObject()).deepCopy();
        try {
          doc = Patch.apply(base, req.getObservationPatchList());
        } catch (IllegalArgumentException e) {
          System.err.println("match " + req.getMatchId() + ": " + e.getMessage());
          doc = new JsonObject();
        }
      }
      observations.put(key, doc);
      if (!config.observations.isEmpty()) dump(req, doc);
      long budget = req.getDeadline().getSeconds() * 1_000_000_000L + req.getDeadline().getNanos();
      // The deadline counts from when the referee sent the request; a request read late here (a
      // cold JVM's first ones) has less left. The referee's wall-clock deadline says how much less,
      // trusted by up to a second, as clocks a second apart would cost every decision that much.
      long wall = req.getDeadlineTime().getSeconds() * 1_000_000_000L + req.getDeadlineTime().getNanos();
      Instant clock = Instant.now();
      long now = clock.getEpochSecond() * 1_000_000_000L + clock.getNano();
      long late = budget - (wall - now);
      if (late > 0 && late < 1_000_000_000L) budget -= late;
      Turn turn = new Turn(req, games.getOrDefault(req.getMatchId(), ""), doc, received + budget);
      AtomicBoolean answered = new AtomicBoolean();
      Runnable fallback = () -> answer(req, answered, req.getDefaultOptionId(), "out of time: default");
      long margin = Math.min(budget / 10, 100_000_000L); // for the answer's trip
      var timer = CLOCK.schedule(fallback, received + budget - margin - System.nanoTime(), TimeUnit.NANOSECONDS);
      THINKERS.execute(() -> {
        String[] choice;
        try {
          choice = bot.choose(turn);
        } catch (RuntimeException e) {
          System.err.println("match " + req.getMatchId() + ": the bot threw " + e);
          choice = new String[] {req.getDefaultOptionId(), "the bot threw: default"};
        }
        timer.cancel(false);
        answer(req, answered, choice[0], choice.length > 1 ? choice[1] : "");
      });
    }

    private void answer(DecisionRequest req, AtomicBoolean answered, String option, String note) {
      if (answered.compareAndSet(false, true)) {
        send(ConnectRequest.newBuilder().setAnswer(Answer.newBuilder().setMatchId(req.getMatchId())
            .setDecisionId(req.getDecisionId()).setOptionId(option).setNote(note)).build());
      }
    }

    private synchronized void dump(DecisionRequest req, JsonObject doc) {
      JsonObject line = new JsonObject();
      line.addProperty("match_id", req.getMatchId());
      line.addProperty("seat", req.getSeat());
      line.addProperty("decision_number", req.getDecisionNumber());
      line.add("observation", doc);
      try (Writer w = new FileWriter(config.observations, true)) {
        w.write(line + "\n");
      } catch (IOException e) {
        System.err.println("cannot write " + config.observations + ": " + e.getMessage());
      }
    }
  }

  private static final JsonFormat.Printer JSON =
      JsonFormat.printer().includingDefaultValueFields().preservingProtoFieldNames().omittingInsignificantWhitespace();

  /** The JSON form of the payload set in an Observation (docs/bot-protocol.md, "Observation deltas"). */
  static JsonObject observationJson(String matchId, Observation obs) {
    FieldDescriptor field = obs.getOneofFieldDescriptor(Observation.getDescriptor().getOneofs().get(0));
    if (field == null) return new JsonObject();
    try {
      JsonElement doc = JsonParser.parseString(JSON.print((Message) obs.getField(field)));
      return doc.isJsonObject() ? doc.getAsJsonObject() : new JsonObject();
    } catch (InvalidProtocolBufferException e) {
      System.err.println("match " + matchId + ": " + e.getMessage());
      return new JsonObject();
    }
  }
}
