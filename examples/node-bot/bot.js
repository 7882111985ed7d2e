#!/usr/bin/env node
// Example Brawl Ladder bot in Node.js, written from the .proto files alone (no SDK).
//
// It opens one BotService.Connect stream with its token in the metadata, says Hello, answers
// every Ping with a Pong, and answers every DecisionRequest with a random offered option. It
// reconnects with backoff when the stream breaks (the referee re-sends pending decisions), and
// exits with status 2 when the referee refuses its token.
//
//   node bot.js --server 127.0.0.1:50051 --token "$BRAWL_TOKEN" [--games tinygame] [--matches N]
//               [--tls [--ca ca.pem]]   (a referee serving TLS; --ca trusts that CA, else the system's roots)
'use strict';

const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

function parseArgs(argv) {
  const args = {
    server: '127.0.0.1:50051', token: process.env.BRAWL_TOKEN || '', games: [], matches: 0, maxMatches: 1, tls: false, ca: '',
  };
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i];
    const value = argv[i + 1];
    if (key === '--server') { args.server = value; i++; }
    else if (key === '--token') { args.token = value; i++; }
    else if (key === '--games') { args.games = value.split(',').filter(Boolean); i++; }
    else if (key === '--matches') { args.matches = Number(value); i++; }
    else if (key === '--max-matches') { args.maxMatches = Number(value); i++; }
    else if (key === '--tls') { args.tls = true; }
    else if (key === '--ca') { args.ca = value; i++; }
    else { console.error(`unknown argument ${key}`); process.exit(64); }
  }
  if (args.ca && !args.tls) { console.error('error: --ca needs --tls'); process.exit(64); }
  return args;
}

const PROTO_ROOT = process.env.BRAWL_PROTO_ROOT || path.join(__dirname, '..', '..', 'proto');
const definition = protoLoader.loadSync('brawl/bot/v1/bot.proto', {
  includeDirs: [PROTO_ROOT],
  keepCase: true, // field names as in the .proto: match_id, decision_id...
  longs: String, // uint64 ping ids arrive as strings and go back unchanged
  enums: String, // ERROR_CODE_ILLEGAL_OPTION rather than 2
  defaults: true,
  oneofs: true, // msg.message names the field set in the `message` oneof
});
const botV1 = grpc.loadPackageDefinition(definition).brawl.bot.v1;

const args = parseArgs(process.argv.slice(2));
if (!args.token) {
  console.error('error: no token (pass --token or set BRAWL_TOKEN)');
  process.exit(2);
}

let finished = 0;
let delayMs = 200;

function log(...parts) {
  console.log(new Date().toISOString(), ...parts);
}

function chooseOption(request) {
  // A DecisionRequest carries everything needed: the options (id, kind, label, typed params) and
  // the seat's observation. This bot only needs the ids.
  const options = request.options;
  return options[Math.floor(Math.random() * options.length)].id;
}

function connect() {
  const credentials = args.tls
    ? grpc.credentials.createSsl(args.ca ? fs.readFileSync(args.ca) : null)
    : grpc.credentials.createInsecure();
  const client = new botV1.BotService(args.server, credentials);
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${args.token}`);
  const call = client.Connect(metadata);
  let done = false;

  call.write({ hello: { games: args.games, max_matches: args.maxMatches, client: 'brawl-node-example/1' } });

  call.on('data', (msg) => {
    switch (msg.message) {
      case 'welcome':
        delayMs = 200;
        log(`connected as ${msg.welcome.bot_name} (${msg.welcome.session_id}), games ${msg.welcome.games.join(',')}`);
        break;
      case 'ping':
        call.write({ pong: { ping_id: msg.ping.ping_id } });
        break;
      case 'match_start':
        log(`match ${msg.match_start.match_id}: ${msg.match_start.game}, seat ${msg.match_start.seat}`);
        break;
      case 'decision_request': {
        const req = msg.decision_request;
        call.write({
          answer: { match_id: req.match_id, decision_id: req.decision_id, option_id: chooseOption(req), note: 'node' },
        });
        break;
      }
      case 'match_end': {
        const end = msg.match_end;
        log(`match ${end.match_id} over: rank ${end.outcome.ranks[end.seat]} (${end.outcome.reason})`);
        finished += 1;
        if (args.matches && finished >= args.matches) {
          done = true;
          call.end();
          client.close();
          process.exit(0);
        }
        break;
      }
      case 'error':
        console.error(`referee error ${msg.error.code}: ${msg.error.message}`);
        break;
      default:
        break;
    }
  });

  call.on('error', (err) => {
    if (done) return;
    if (err.code === grpc.status.UNAUTHENTICATED || err.code === grpc.status.FAILED_PRECONDITION) {
      console.error(`error: the referee refused the bot: ${err.details}`);
      process.exit(2);
    }
    console.error(`stream broke (${err.code}: ${err.details}); reconnecting in ${delayMs} ms`);
    client.close();
    setTimeout(connect, delayMs);
    delayMs = Math.min(delayMs * 2, 5000);
  });
}

connect();
