#!/usr/bin/env node
// node-grep: a memdock adapter in JavaScript with no dependencies beyond Node.js.
// Protocol v1: `--request FILE` (one operation, result file) or `--worker` (JSON lines on stdin/stdout).
'use strict';

const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
const readline = require('readline');

const NAME = 'node-grep';
const VERSION = '1.0.0';
const PROTOCOLS = ['1.0'];
const OPERATIONS = ['capabilities', 'healthcheck', 'prepare', 'index', 'query', 'get_node', 'delete'];
const EXIT = { config: 3, invalid_input: 4, unsupported: 5, transient: 6, backend: 7, cancelled: 8, version: 9 };
const KNOWN_OPS = ['capabilities', 'healthcheck', 'prepare', 'index', 'query', 'search_nodes', 'search_facts',
  'search_episodes', 'get_node', 'get_edge', 'delete'];

class AdapterError extends Error {
  constructor(category, message, details) {
    super(message);
    this.category = category;
    this.retryable = category === 'transient';
    this.details = details || {};
  }
}

// The protocol channel is fd 1; console.log goes to stderr so a stray print cannot corrupt it.
const protoOut = (line) => fs.writeSync(1, line + '\n');
console.log = (...args) => process.stderr.write(args.join(' ') + '\n');

function emit(event, requestId, worker) {
  if (worker && requestId) event.request_id = requestId;
  protoOut(JSON.stringify(event));
}

function writeAtomic(file, data) {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.tmp-${process.pid}`);
  const fd = fs.openSync(tmp, 'w');
  fs.writeSync(fd, data);
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  fs.renameSync(tmp, file);
}

// ---- config ---------------------------------------------------------------------------------

function checkConfig(config) {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    throw new AdapterError('config', 'config must be an object');
  }
  for (const [k, v] of Object.entries(config)) {
    if (k !== 'min_overlap' && k !== 'batch_size') {
      throw new AdapterError('config', `invalid config for ${NAME}: $.${k}: unknown field`);
    }
    if (!Number.isInteger(v) || v < 1) {
      throw new AdapterError('config', `invalid config for ${NAME}: $.${k}: must be an integer >= 1`);
    }
  }
}

// ---- storage: one JSON document in the data dir, replaced atomically per batch ------------------

function storePath(dataDir) { return path.join(dataDir, 'node-grep.json'); }

function loadStore(dataDir) {
  const p = storePath(dataDir);
  if (!fs.existsSync(p)) return { chunks: {}, entries: {}, threads: {} };
  try {
    return JSON.parse(fs.readFileSync(p, 'utf8'));
  } catch (e) {
    throw new AdapterError('backend', `${p}: store is corrupt: ${e.message}`);
  }
}

function saveStore(dataDir, store) { writeAtomic(storePath(dataDir), JSON.stringify(store)); }

// ---- bundles --------------------------------------------------------------------------------

const ID_RE = /^[A-Za-z0-9][A-Za-z0-9_.:@/+=~-]{0,255}$/;
const REQUIRED = {
  thread: ['id', 'title', 'ingestion_time'],
  entry: ['id', 'thread_id', 'position', 'body', 'ingestion_time'],
  chunk: ['id', 'entry_id', 'thread_id', 'position', 'text', 'start', 'end', 'token_count', 'content_hash'],
  edge: ['id', 'type', 'source_id', 'target_id'],
  entity: ['id', 'entity_type', 'name'],
};

function readManifest(bundle) {
  const mpath = path.join(bundle, 'manifest.json');
  if (!fs.existsSync(mpath)) throw new AdapterError('invalid_input', `${bundle}: incomplete bundle: no manifest.json`);
  let m;
  try { m = JSON.parse(fs.readFileSync(mpath, 'utf8')); } catch (e) {
    throw new AdapterError('invalid_input', `${mpath}: invalid JSON: ${e.message}`);
  }
  const major = String(m.memory_payload_version || '').split('.')[0];
  if (major !== '1') {
    throw new AdapterError('version', `${mpath}: payload version ${m.memory_payload_version} is not readable (found ${m.memory_payload_version}, supported 1.0.0)`);
  }
  if (!Array.isArray(m.files)) throw new AdapterError('invalid_input', `${mpath}: $.files: missing`);
  return m;
}

async function* readRecords(bundle, file) {
  const p = path.join(bundle, file.path);
  if (!fs.existsSync(p)) throw new AdapterError('invalid_input', `${p}: file listed in the manifest is missing`);
  const buf = fs.readFileSync(p);
  if (buf.length !== file.bytes) throw new AdapterError('invalid_input', `${p}: size is ${buf.length} bytes, the manifest says ${file.bytes}`);
  const sha = 'sha256:' + crypto.createHash('sha256').update(buf).digest('hex');
  if (sha !== file.sha256) throw new AdapterError('invalid_input', `${p}: sha256 is ${sha}, the manifest says ${file.sha256}`);
  const text = buf.toString('utf8');
  if (text.length && !text.endsWith('\n')) {
    throw new AdapterError('invalid_input', `${p}:${text.split('\n').length}: truncated last line: the file does not end with a newline`);
  }
  const lines = text.split('\n');
  lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const where = `${p}:${i + 1}`;
    let rec;
    try { rec = JSON.parse(lines[i]); } catch (e) {
      throw new AdapterError('invalid_input', `${where}: invalid JSON: ${e.message}`);
    }
    if (rec === null || typeof rec !== 'object' || Array.isArray(rec)) {
      throw new AdapterError('invalid_input', `${where}: a record must be a JSON object`);
    }
    for (const field of REQUIRED[file.record_type] || []) {
      if (!(field in rec)) throw new AdapterError('invalid_input', `${where}: id=${rec.id} $: '${field}' is a required property`);
    }
    if (typeof rec.id === 'string' && !ID_RE.test(rec.id)) {
      throw new AdapterError('invalid_input', `${where}: id=${rec.id} $.id: not a valid id`);
    }
    if (file.record_type === 'chunk' && typeof rec.text !== 'string') {
      throw new AdapterError('invalid_input', `${where}: id=${rec.id} $.text: must be a string`);
    }
    yield rec;
  }
}

// ---- operations -----------------------------------------------------------------------------

const terms = (s) => (String(s).toLowerCase().match(/[\p{L}\p{N}_]+/gu) || []);

// --8<-- [start:capabilities]
const ops = {
  capabilities() {
    return {
      adapter: NAME, adapter_version: VERSION, protocol_versions: PROTOCOLS, payload_versions: ['1.0.0'],
      operations: OPERATIONS,
      features: { embeddings: false, entity_extraction: false, graph_query: false, rerank: false, temporal: false,
        incremental: true, delete: true, concurrent_index: false, retrieval: true },
      id_shapes: { chunk: 'the chunk ids of the payload' },
      score: { range: [0, 1], semantics: 'share of query terms present in the chunk' },
    };
  },
// --8<-- [end:capabilities]

  healthcheck(req) {
    const s = loadStore(req.data_dir);
    return { ok: true, backend: NAME, checks: { chunks: Object.keys(s.chunks).length }, message: 'ok' };
  },

  prepare(req) {
    fs.mkdirSync(req.data_dir, { recursive: true });
    if (!fs.existsSync(storePath(req.data_dir))) saveStore(req.data_dir, loadStore(req.data_dir));
    return { ok: true, details: {} };
  },

// --8<-- [start:index]
  async index(req, ctx) {
    const bundle = req.params && req.params.bundle;
    if (typeof bundle !== 'string') throw new AdapterError('invalid_input', 'index needs params.bundle');
    const manifest = readManifest(bundle);
    const store = loadStore(req.data_dir);
    const batchSize = (req.config && req.config.batch_size) || 200;
    const indexed = {};
    let pending = [];
    let done = 0;
    let checkpoints = 0;
    const commit = () => {
      if (!pending.length) return;
      saveStore(req.data_dir, store);
      ctx.emit({ event: 'checkpoint', ids: pending });
      ctx.emit({ event: 'progress', done, total: null });
      checkpoints++;
      pending = [];
    };
    const order = ['thread', 'entry', 'entity', 'edge', 'chunk'];
    const files = manifest.files.filter((f) => f.format === 'jsonl' && order.includes(f.record_type))
      .sort((a, b) => order.indexOf(a.record_type) - order.indexOf(b.record_type) || (a.part || 0) - (b.part || 0));
    for (const file of files) {
      for await (const rec of readRecords(bundle, file)) {
        const t = file.record_type;
        if (t === 'chunk') store.chunks[rec.id] = { id: rec.id, entry_id: rec.entry_id, thread_id: rec.thread_id, text: rec.text };
        else if (t === 'entry') store.entries[rec.id] = { id: rec.id, thread_id: rec.thread_id, text: rec.body };
        else if (t === 'thread') store.threads[rec.id] = { id: rec.id, text: rec.title };
        indexed[t] = (indexed[t] || 0) + 1;
        pending.push(rec.id);
        done++;
        if (pending.length >= batchSize) commit();
      }
    }
    commit();
    return { indexed, checkpoints };
  },
// --8<-- [end:index]

  query(req) {
    const q = [...new Set(terms(req.params.text || ''))];
    const limit = Math.max(1, Math.min(1000, req.params.limit || 10));
    const minOverlap = (req.config && req.config.min_overlap) || 1;
    const threads = req.params.filters && req.params.filters.thread_ids;
    const store = loadStore(req.data_dir);
    const hits = [];
    if (q.length) {
      for (const c of Object.values(store.chunks)) {
        if (threads && !threads.includes(c.thread_id)) continue;
        const have = new Set(terms(c.text));
        const overlap = q.filter((t) => have.has(t)).length;
        if (overlap >= minOverlap) hits.push({ c, score: overlap / q.length });
      }
    }
    hits.sort((a, b) => b.score - a.score || (a.c.id < b.c.id ? -1 : 1));
    return {
      backend: NAME,
      hits: hits.slice(0, limit).map((h, i) => ({
        id: h.c.id, kind: 'chunk', score: h.score, rank: i + 1, text: h.c.text, backend: NAME,
        provenance: { thread_id: h.c.thread_id, entry_id: h.c.entry_id, chunk_id: h.c.id },
      })),
    };
  },

  get_node(req) {
    const store = loadStore(req.data_dir);
    const id = req.params.id;
    for (const [kind, table] of [['chunk', store.chunks], ['entry', store.entries], ['thread', store.threads]]) {
      const r = table[id];
      if (r) {
        const provenance = kind === 'chunk' ? { thread_id: r.thread_id, entry_id: r.entry_id, chunk_id: r.id }
          : kind === 'entry' ? { thread_id: r.thread_id, entry_id: r.id } : { thread_id: r.id };
        return { item: { id, kind, score: 1, text: r.text, backend: NAME, provenance } };
      }
    }
    return { item: null };
  },

  delete(req) {
    const store = loadStore(req.data_dir);
    const deleted = new Set();
    const notFound = [];
    for (const id of req.params.ids || []) {
      let found = false;
      if (store.threads[id]) {
        found = true;
        delete store.threads[id];
        deleted.add(id);
        const entries = new Set(Object.values(store.entries).filter((e) => e.thread_id === id).map((e) => e.id));
        for (const e of entries) { delete store.entries[e]; deleted.add(e); }
        // the chunks sent with the thread, and its entries' chunks sent with another
        for (const c of Object.values(store.chunks)) {
          if (c.thread_id === id || entries.has(c.entry_id)) { delete store.chunks[c.id]; deleted.add(c.id); }
        }
      }
      if (store.entries[id]) {
        found = true;
        delete store.entries[id];
        deleted.add(id);
        for (const c of Object.values(store.chunks)) if (c.entry_id === id) { delete store.chunks[c.id]; deleted.add(c.id); }
      }
      if (store.chunks[id]) { found = true; delete store.chunks[id]; deleted.add(id); }
      if (!found) notFound.push(id);
    }
    saveStore(req.data_dir, store);
    const requested = new Set(req.params.ids || []);
    return { deleted: [...deleted], not_found: notFound, cascaded: [...deleted].filter((d) => !requested.has(d)).length };
  },
};

// --8<-- [start:dispatch]
async function dispatch(req, worker) {
  const base = { protocol_version: '1.0', request_id: String(req.request_id || ''), operation: String(req.operation || '') };
  try {
    const offered = req.offered_protocols || [req.protocol_version];
    if (!offered.some((v) => PROTOCOLS.some((p) => String(v).split('.')[0] === p.split('.')[0]))) {
      throw new AdapterError('version', `${NAME} speaks protocol ${PROTOCOLS.join(', ')}; the caller offered ${offered.join(', ')}`);
    }
    checkConfig(req.config || {});
    if (!KNOWN_OPS.includes(req.operation)) throw new AdapterError('unsupported', `unknown operation ${JSON.stringify(req.operation)}`);
    if (!OPERATIONS.includes(req.operation)) throw new AdapterError('unsupported', `${NAME} does not support ${req.operation}`);
    const ctx = { emit: (ev) => emit(ev, req.request_id, worker) };
    const result = await ops[req.operation](req, ctx);
    return { ...base, ok: true, result };
  } catch (e) {
    if (e instanceof AdapterError) {
      return { ...base, ok: false, error: { category: e.category, retryable: e.retryable, message: e.message, details: e.details } };
    }
    process.stderr.write((e && e.stack) || String(e));
    process.stderr.write('\n');
    return { ...base, ok: false, error: { category: 'backend', retryable: false, message: String(e && e.message), details: {} } };
  }
}

const exitCode = (resp) => (resp.ok ? 0 : EXIT[resp.error.category] || 1);
// --8<-- [end:dispatch]

// --8<-- [start:main]
async function main() {
  const argv = process.argv.slice(2);
  if (argv.includes('--worker')) {
    const parent = process.ppid;
    setInterval(() => { if (process.ppid !== parent) process.exit(0); }, 500).unref();
    const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
    for await (const line of rl) {
      if (!line.trim()) continue;
      let req;
      try { req = JSON.parse(line); } catch (e) { process.stderr.write(`ignoring malformed request: ${e.message}\n`); continue; }
      const resp = await dispatch(req, true);
      emit({ event: 'result', response: resp }, resp.request_id, true);
    }
    return 0;
  }
  const i = argv.indexOf('--request');
  if (i < 0 || !argv[i + 1]) { process.stderr.write('usage: adapter.js --request FILE | --worker\n'); return 2; }
  let req;
  try { req = JSON.parse(fs.readFileSync(argv[i + 1], 'utf8')); } catch (e) {
    process.stderr.write(`cannot read request: ${e.message}\n`);
    return EXIT.invalid_input;
  }
  const resp = await dispatch(req, false);
  const out = req.result_path || path.join(req.work_dir || '.', 'result.json');
  writeAtomic(out, JSON.stringify(resp));
  emit({ event: 'result', path: out });
  return exitCode(resp);
}
// --8<-- [end:main]

main().then((code) => { process.exitCode = code; }, (e) => { process.stderr.write(String(e && e.stack) + '\n'); process.exitCode = 7; });
