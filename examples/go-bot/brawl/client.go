// Package brawl is the Go starter kit's library: it connects a bot to a Brawl Ladder referee
// (brawl.bot.v1.BotService/Connect, token in the metadata), plays any number of matches on the
// one stream, keeps each seat's whole observation by applying the observation patches, answers
// pings at once (the bot thinks in its own goroutine), answers the default option itself just
// before a deadline the bot would miss, and reconnects with backoff. See docs/bot-protocol.md.
package brawl

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	botv1 "brawlkit/gen/botv1"
)

// Exit statuses of Run.
const (
	ExitDone        = 0  // played the matches asked for
	ExitRefused     = 2  // the referee refused the token or the Hello
	ExitUnreachable = 3  // no referee answered within Config.ConnectTimeout
	ExitUsage       = 64 // bad command line
)

// Config is what Run needs; ParseFlags fills it from the command line.
type Config struct {
	Servers        []string      // host:port of each referee; each reconnect tries the next
	Token          string        // the bot's token (sent as "authorization: Bearer <token>")
	Games          []string      // games to play; empty means every game the token allows
	MaxMatches     int           // seats accepted at once
	Matches        int           // stop after this many matches ended (0: never)
	ConnectTimeout time.Duration // give up when no session could be opened for this long
	Observations   string        // if set, append each decision's whole observation here (JSON lines)
	Client         string        // client name sent in the Hello
	TLS            bool          // connect with TLS (a referee serving TLS, a ladder behind a TLS ingress)
	CA             string        // with TLS: trust this CA file (PEM) instead of the system's roots
}

// ParseFlags reads --server, --token (or $BRAWL_TOKEN), --games, --max-matches, --matches,
// --connect-timeout, --observations, --tls and --ca.
func ParseFlags(client string) Config {
	fs := flag.NewFlagSet(os.Args[0], flag.ContinueOnError)
	server := fs.String("server", "127.0.0.1:50051", "referee address(es), host:port[,host:port...]")
	token := fs.String("token", os.Getenv("BRAWL_TOKEN"), "the bot's token (default $BRAWL_TOKEN)")
	games := fs.String("games", "", "games to play, comma separated (default: all the token allows)")
	maxMatches := fs.Int("max-matches", 1, "seats played at once")
	matches := fs.Int("matches", 0, "exit after this many matches (0: run until stopped)")
	timeout := fs.Duration("connect-timeout", 30*time.Second, "give up when no referee answers for this long")
	observations := fs.String("observations", "", "append every decision's observation to this file (JSON lines)")
	useTLS := fs.Bool("tls", false, "connect with TLS")
	ca := fs.String("ca", "", "with --tls: trust this CA file (PEM) instead of the system's roots")
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(ExitUsage)
	}
	if *ca != "" && !*useTLS {
		fmt.Fprintln(os.Stderr, "error: --ca needs --tls")
		os.Exit(ExitUsage)
	}
	cfg := Config{Token: *token, MaxMatches: *maxMatches, Matches: *matches, ConnectTimeout: *timeout,
		Observations: *observations, Client: client, TLS: *useTLS, CA: *ca}
	cfg.Servers = splitList(*server)
	cfg.Games = splitList(*games)
	return cfg
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Turn is one decision of one seat.
type Turn struct {
	Request     *botv1.DecisionRequest // options, events, clock; Request.Options[i].Id is what to answer
	Game        string                 // "scrumbrawl" or "superfantasybrawl"
	Observation map[string]any         // the seat's whole observation, JSON form (proto field names)
	Deadline    time.Time              // when the answer is late, by this process's clock
}

// TimeLeft is the time until the answer is late, by this process's clock.
func (t *Turn) TimeLeft() time.Duration { return time.Until(t.Deadline) }

// Bot picks one option per decision; Choose runs in its own goroutine and must be safe for
// concurrent calls (many matches at once). It returns an offered option id and a note.
type Bot interface {
	Choose(t *Turn) (optionID, note string)
}

// protoCodec marshals with the protobuf Go API v2 (the generated code's), whatever protobuf
// package the gRPC library was built with.
type protoCodec struct{}

func (protoCodec) Marshal(v any) ([]byte, error) { return proto.Marshal(v.(proto.Message)) }
func (protoCodec) Unmarshal(data []byte, v any) error {
	return proto.Unmarshal(data, v.(proto.Message))
}
func (protoCodec) Name() string { return "proto" }

var _ encoding.Codec = protoCodec{}

type session struct {
	cfg      Config
	bot      Bot
	stream   botv1.BotService_ConnectClient
	sendMu   sync.Mutex
	obsMu    sync.Mutex
	obs      map[string]any // (match/seat) -> whole observation
	games    map[string]string
	finished *int
}

func (s *session) send(m *botv1.ConnectRequest) {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	_ = s.stream.Send(m) // a broken stream shows up in Recv
}

// Run plays until cfg.Matches matches ended (or forever) and returns the process exit status.
func Run(cfg Config, bot Bot) int {
	if cfg.Token == "" {
		fmt.Fprintln(os.Stderr, "error: no token (pass --token or set BRAWL_TOKEN)")
		return ExitRefused
	}
	if len(cfg.Servers) == 0 {
		fmt.Fprintln(os.Stderr, "error: no referee address (--server host:port)")
		return ExitUsage
	}
	dial := grpc.WithInsecure()
	if cfg.TLS {
		creds := credentials.NewTLS(&tls.Config{}) // the system's roots
		if cfg.CA != "" {
			var err error
			if creds, err = credentials.NewClientTLSFromFile(cfg.CA, ""); err != nil {
				fmt.Fprintf(os.Stderr, "error: cannot use --ca %s: %v\n", cfg.CA, err)
				return ExitUsage
			}
		}
		dial = grpc.WithTransportCredentials(creds)
	}
	finished := 0
	delay := 200 * time.Millisecond
	lastUp := time.Now() // the last moment a session was open (or the start)
	for attempt := 0; ; attempt++ {
		server := cfg.Servers[attempt%len(cfg.Servers)]
		welcomed, err := connectOnce(cfg, bot, server, dial, &finished)
		if err == nil {
			return ExitDone
		}
		code := status.Code(err)
		if code == codes.Unauthenticated || code == codes.FailedPrecondition {
			fmt.Fprintf(os.Stderr, "error: the referee refused the bot: %s\n", status.Convert(err).Message())
			return ExitRefused
		}
		if welcomed {
			lastUp, delay = time.Now(), 200*time.Millisecond
		}
		if time.Since(lastUp) >= cfg.ConnectTimeout {
			fmt.Fprintf(os.Stderr, "error: cannot reach the referee at %s (gave up after %s): %s\n",
				strings.Join(cfg.Servers, ","), cfg.ConnectTimeout, status.Convert(err).Message())
			return ExitUnreachable
		}
		fmt.Fprintf(os.Stderr, "stream broke (%s: %s); reconnecting in %s\n", code, status.Convert(err).Message(), delay)
		time.Sleep(delay)
		if delay *= 2; delay > 5*time.Second {
			delay = 5 * time.Second
		}
	}
}

// connectOnce runs one stream; nil means the asked-for matches are done.
func connectOnce(cfg Config, bot Bot, server string, dial grpc.DialOption, finished *int) (bool, error) {
	conn, err := grpc.Dial(server, dial)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+cfg.Token)
	stream, err := botv1.NewBotServiceClient(conn).Connect(ctx, grpc.ForceCodec(protoCodec{}))
	if err != nil {
		return false, err
	}
	s := &session{cfg: cfg, bot: bot, stream: stream, obs: map[string]any{}, games: map[string]string{},
		finished: finished}
	s.send(&botv1.ConnectRequest{Message: &botv1.ConnectRequest_Hello{Hello: &botv1.Hello{
		Games: cfg.Games, MaxMatches: int32(cfg.MaxMatches), Client: cfg.Client, Batching: true}}})
	welcomed := false
	for {
		msg, err := stream.Recv()
		if err == io.EOF {
			return welcomed, status.Error(codes.Unavailable, "the referee closed the stream")
		}
		if err != nil {
			return welcomed, err
		}
		msgs := []*botv1.ConnectResponse{msg}
		if b := msg.GetBatch(); b != nil {
			msgs = b.Messages
		}
		for _, m := range msgs {
			if m.GetWelcome() != nil {
				welcomed = true
			}
			if s.handle(m) {
				_ = stream.CloseSend()
				return true, nil
			}
		}
	}
}

// handle acts on one referee message; true when the asked-for matches are all done.
func (s *session) handle(m *botv1.ConnectResponse) bool {
	switch x := m.Message.(type) {
	case *botv1.ConnectResponse_Welcome:
		w := x.Welcome
		logf("connected as %s (%s), games %s", w.BotName, w.SessionId, strings.Join(w.Games, ","))
	case *botv1.ConnectResponse_Ping:
		s.send(&botv1.ConnectRequest{Message: &botv1.ConnectRequest_Pong{Pong: &botv1.Pong{PingId: x.Ping.PingId}}})
	case *botv1.ConnectResponse_MatchStart:
		st := x.MatchStart
		key := fmt.Sprintf("%s/%d", st.MatchId, st.Seat)
		doc, err := observationJSON(st.Observation)
		if err != nil {
			fmt.Fprintf(os.Stderr, "match %s: %v\n", st.MatchId, err)
		}
		s.obsMu.Lock()
		s.obs[key], s.games[st.MatchId] = doc, st.Game
		s.obsMu.Unlock()
		resumed := ""
		if st.Resumed {
			resumed = " (resumed)"
		}
		logf("match %s: %s, seat %d%s", st.MatchId, st.Game, st.Seat, resumed)
	case *botv1.ConnectResponse_DecisionRequest:
		s.decide(x.DecisionRequest)
	case *botv1.ConnectResponse_MatchEnd:
		e := x.MatchEnd
		s.obsMu.Lock()
		delete(s.obs, fmt.Sprintf("%s/%d", e.MatchId, e.Seat))
		s.obsMu.Unlock()
		rank := int32(0)
		if int(e.Seat) < len(e.Outcome.GetRanks()) {
			rank = e.Outcome.Ranks[e.Seat]
		}
		logf("match %s over: rank %d (%s)", e.MatchId, rank, e.Outcome.GetReason())
		*s.finished++
		return s.cfg.Matches > 0 && *s.finished >= s.cfg.Matches
	case *botv1.ConnectResponse_Error:
		fmt.Fprintf(os.Stderr, "referee error %s: %s\n", x.Error.Code, x.Error.Message)
	}
	return false
}

// decide rebuilds the observation, then lets the bot think in a goroutine; if it is not done a
// little before the deadline, the default option goes out instead (once: a late answer is dropped).
func (s *session) decide(req *botv1.DecisionRequest) {
	received := time.Now()
	key := fmt.Sprintf("%s/%d", req.MatchId, req.Seat)
	s.obsMu.Lock()
	var doc any
	var err error
	if req.Observation != nil {
		doc, err = observationJSON(req.Observation) // a full_observations session
	} else {
		ops := make([]Op, len(req.ObservationPatch))
		for i, op := range req.ObservationPatch {
			ops[i] = Op{op.Op, op.Path, op.Value}
		}
		doc, err = ApplyPatch(s.obs[key], ops)
	}
	if err != nil {
		// A patch that does not apply is a bug here or a lost message: say so and answer anyway.
		fmt.Fprintf(os.Stderr, "match %s: %v\n", req.MatchId, err)
		doc = map[string]any{}
	}
	s.obs[key] = doc
	game := s.games[req.MatchId]
	s.obsMu.Unlock()
	obs, _ := doc.(map[string]any)
	if s.cfg.Observations != "" {
		s.dump(req, obs)
	}
	// The deadline counts from when the referee sent the request; a request read late here has
	// less left. The referee's wall-clock deadline says how much less, trusted by up to a second,
	// as clocks a second apart would cost every decision that much.
	budget := req.Deadline.AsDuration()
	if late := budget - time.Until(req.DeadlineTime.AsTime()); late > 0 && late < time.Second {
		budget -= late
	}
	deadline := received.Add(budget)
	turn := &Turn{Request: req, Game: game, Observation: obs, Deadline: deadline}
	var once sync.Once
	answer := func(option, note string) {
		once.Do(func() {
			s.send(&botv1.ConnectRequest{Message: &botv1.ConnectRequest_Answer{Answer: &botv1.Answer{
				MatchId: req.MatchId, DecisionId: req.DecisionId, OptionId: option, Note: note}}})
		})
	}
	// Keep a margin for the answer's trip: a tenth of the time, at most 100 ms.
	margin := budget / 10
	if margin > 100*time.Millisecond {
		margin = 100 * time.Millisecond
	}
	timer := time.AfterFunc(time.Until(deadline)-margin, func() { answer(req.DefaultOptionId, "out of time: default") })
	go func() {
		option, note := s.bot.Choose(turn)
		timer.Stop()
		answer(option, note)
	}()
}

var dumpMu sync.Mutex

func (s *session) dump(req *botv1.DecisionRequest, obs map[string]any) {
	line, _ := json.Marshal(map[string]any{"match_id": req.MatchId, "seat": req.Seat, "decision_number": req.DecisionNumber,
		"observation": obs})
	dumpMu.Lock()
	defer dumpMu.Unlock()
	f, err := os.OpenFile(s.cfg.Observations, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		_, _ = f.Write(append(line, '\n'))
		_ = f.Close()
	}
}

// observationJSON is the JSON form of the payload set in an Observation (docs/bot-protocol.md,
// "Observation deltas"): proto field names, every scalar, list and map present.
func observationJSON(o *botv1.Observation) (any, error) {
	if o == nil {
		return map[string]any{}, nil
	}
	m := o.ProtoReflect()
	field := m.WhichOneof(m.Descriptor().Oneofs().ByName("payload"))
	if field == nil {
		return map[string]any{}, nil
	}
	data, err := protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true}.Marshal(m.Get(field).Message().Interface())
	if err != nil {
		return nil, err
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	return dropNulls(doc), nil
}

func logf(format string, args ...any) {
	fmt.Printf("%s %s\n", time.Now().UTC().Format(time.RFC3339Nano), fmt.Sprintf(format, args...))
}
