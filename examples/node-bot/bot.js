#!/usr/bin/env node
// Example Brawl Ladder bot in Node.js, written from the .proto files alone (no SDK).
//
// It opens one BotService.Connect stream with its token in the metadata, says Hello, answers
// every Ping with a Pong, and answers every DecisionRequest with a random offered option. It
// keeps each seat's whole observation: the MatchStart carries it, and each DecisionRequest only
// its observation_patch (RFC 6902 JSON Patch ops: add / replace / remove at an RFC 6901 path,
// the value as JSON text), applied here in order. It reconnects with backoff when the stream
// breaks (the referee re-sends the MatchStart with the whole observation, then the pending
// decision), and exits with status 2 when the referee refuses its token.
//
//   node bot.js --server 127.0.0.1:50051 --token "$BRAWL_TOKEN" [--games tinygame] [--matches N]
//               [--tls [--ca ca.pem]]   (a referee serving TLS; --ca trusts that CA, else the system's roots)
//               [--observations FILE]   (append each turn's whole observation to FILE as JSON lines)
'use strict';

const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

function parseArgs(argv) {
  const args = {
    server: '127.0.0.1:50051', token: process.env.BRAWL_TOKEN || '', games: [], matches: 0, maxMatches: 1, tls: false, ca: '', observations: '',
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
    else if (key === '--observations') { args.observations = value; i++; }
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

// The JSON form of an observation: the payload message (the field the `payload` oneof names),
// with proto field names. proto-loader's `defaults: true` fills the defaults the referee's form
// has; it writes unset message fields as null where the form leaves them out, which no patch
// path goes through.
function observationJson(observation) {
  if (!observation || !observation.payload) return {};
  if (observation.payload === 'generic') return structToJson(observation.generic); // test games
  return JSON.parse(JSON.stringify(observation[observation.payload]));
}

// google.protobuf.Struct as proto-loader decodes it ({fields: {k: {kind, <kind>: ...}}}) -> JSON.
function valueToJson(v) {
  switch (v.kind) {
    case 'number_value': return v.number_value;
    case 'string_value': return v.string_value;
    case 'bool_value': return v.bool_value;
    case 'struct_value': return structToJson(v.struct_value);
    case 'list_value': return (v.list_value.values || []).map(valueToJson);
    default: return null;
  }
}

function structToJson(s) {
  const out = {};
  for (const [k, v] of Object.entries((s && s.fields) || {})) out[k] = valueToJson(v);
  return out;
}

function pointer(path) {
  if (path === '') return [];
  if (!path.startsWith('/')) throw new Error(`bad JSON Pointer ${JSON.stringify(path)}`);
  return path.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

// Applies observation_patch ops in order (mutating `doc`, which this bot owns) and returns it.
function applyPatch(doc, ops) {
  for (const op of ops) {
    const tokens = pointer(op.path);
    const value = op.op === 'remove' ? undefined : JSON.parse(op.value);
    if (tokens.length === 0) {
      if (op.op === 'remove') throw new Error('cannot remove the whole observation');
      doc = value;
      continue;
    }
    let parent = doc;
    for (const t of tokens.slice(0, -1)) {
      parent = Array.isArray(parent) ? parent[Number(t)] : parent[t];
      if (parent === undefined || parent === null || typeof parent !== 'object') {
        throw new Error(`patch path ${op.path} does not exist`);
      }
    }
    const last = tokens[tokens.length - 1];
    if (Array.isArray(parent)) {
      const i = last === '-' ? parent.length : Number(last);
      if (op.op === 'add') parent.splice(i, 0, value);
      else if (op.op === 'replace') parent[i] = value;
      else if (op.op === 'remove') parent.splice(i, 1);
      else throw new Error(`unknown patch op ${op.op}`);
    } else if (op.op === 'add' || op.op === 'replace') {
      parent[last] = value;
    } else if (op.op === 'remove') {
      delete parent[last];
    } else {
      throw new Error(`unknown patch op ${op.op}`);
    }
  }
  return doc;
}

// The whole observation of each (match, seat), kept up to date with the patches.
const observations = new Map();

function chooseOption(request, observation) {
  // A DecisionRequest carries the options (id, kind, label, typed params); `observation` is the
  // seat's whole view. This bot only needs the ids.
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

  // batching: several referee messages that wait at once come as one `batch` (docs/bot-protocol.md,
  // "Batches"); this bot reads them in order and answers a batch's requests with one batch.
  call.write({
    hello: { games: args.games, max_matches: args.maxMatches, client: 'brawl-node-example/1', batching: true },
  });

  // Acts on one referee message; returns what to send back (a ConnectRequest), if anything.
  function handle(msg, batched) {
    switch (msg.message) {
      case 'welcome':
        delayMs = 200;
        log(`connected as ${msg.welcome.bot_name} (${msg.welcome.session_id}), games ${msg.welcome.games.join(',')}`);
        return null;
      case 'ping':
        return { pong: { ping_id: msg.ping.ping_id } };
      case 'match_start': {
        const start = msg.match_start;
        observations.set(`${start.match_id}/${start.seat}`, observationJson(start.observation));
        log(`match ${start.match_id}: ${start.game}, seat ${start.seat}${start.resumed ? ' (resumed)' : ''}`);
        return null;
      }
      case 'decision_request': {
        const req = msg.decision_request;
        const key = `${req.match_id}/${req.seat}`;
        let observation;
        try {
          if (req.observation && req.observation.payload) {
            observation = observationJson(req.observation); // a full-observations session
          } else {
            observation = applyPatch(observations.get(key) || {}, req.observation_patch);
          }
        } catch (err) {
          // A patch that does not apply is a bug here or a lost message: say so, answer anyway
          // (this bot does not need the observation), and start over at the next MatchStart.
          console.error(`match ${req.match_id}: ${err.message}`);
          observation = {};
        }
        observations.set(key, observation);
        if (args.observations) {
          const line = { match_id: req.match_id, decision_number: req.decision_number, observation, batched };
          fs.appendFileSync(args.observations, `${JSON.stringify(line)}\n`);
        }
        const optionId = chooseOption(req, observation);
        return { answer: { match_id: req.match_id, decision_id: req.decision_id, option_id: optionId, note: 'node' } };
      }
      case 'match_end': {
        const end = msg.match_end;
        observations.delete(`${end.match_id}/${end.seat}`);
        log(`match ${end.match_id} over: rank ${end.outcome.ranks[end.seat]} (${end.outcome.reason})`);
        finished += 1;
        if (args.matches && finished >= args.matches) {
          done = true;
          call.end();
          client.close();
          process.exit(0);
        }
        return null;
      }
      case 'error':
        console.error(`referee error ${msg.error.code}: ${msg.error.message}`);
        return null;
      default:
        return null;
    }
  }

  call.on('data', (msg) => {
    const batched = msg.message === 'batch';
    const replies = (batched ? msg.batch.messages : [msg]).map((m) => handle(m, batched)).filter((r) => r);
    if (replies.length === 1) call.write(replies[0]);
    else if (replies.length > 1) call.write({ batch: { messages: replies } });
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
