-- Edge knowledge base. SQLite is the source of truth; faiss files are rebuilt from the vector blobs here
-- whenever they lag behind (see vector_index.py), so one SQLite transaction makes a change all-or-nothing.
PRAGMA foreign_keys = ON;

CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS documents (
    doc_id       TEXT PRIMARY KEY,
    title        TEXT NOT NULL,
    source       TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    n_chars      INTEGER NOT NULL,
    ingested_at  REAL NOT NULL
);

CREATE TABLE IF NOT EXISTS chunks (
    id      INTEGER PRIMARY KEY,
    doc_id  TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
    idx     INTEGER NOT NULL,
    start   INTEGER NOT NULL,
    "end"   INTEGER NOT NULL,
    tokens  INTEGER NOT NULL,
    text    TEXT NOT NULL,
    vector  BLOB NOT NULL,
    UNIQUE (doc_id, idx)
);

CREATE TABLE IF NOT EXISTS entities (
    id          INTEGER PRIMARY KEY,
    key         TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL,
    type        TEXT NOT NULL,
    description TEXT NOT NULL,
    vector      BLOB NOT NULL
);

CREATE TABLE IF NOT EXISTS entity_mentions (
    entity_id   INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    chunk_id    INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    type        TEXT NOT NULL,
    description TEXT NOT NULL,
    origin      TEXT NOT NULL,
    PRIMARY KEY (entity_id, chunk_id)
);
CREATE INDEX IF NOT EXISTS entity_mentions_chunk ON entity_mentions(chunk_id);

CREATE TABLE IF NOT EXISTS relations (
    id          INTEGER PRIMARY KEY,
    src_id      INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    tgt_id      INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    description TEXT NOT NULL,
    keywords    TEXT NOT NULL,
    weight      REAL NOT NULL,
    vector      BLOB NOT NULL,
    UNIQUE (src_id, tgt_id),
    CHECK (src_id < tgt_id)
);

CREATE TABLE IF NOT EXISTS relation_mentions (
    relation_id INTEGER NOT NULL REFERENCES relations(id) ON DELETE CASCADE,
    chunk_id    INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    description TEXT NOT NULL,
    keywords    TEXT NOT NULL,
    weight      REAL NOT NULL,
    origin      TEXT NOT NULL,
    PRIMARY KEY (relation_id, chunk_id)
);
CREATE INDEX IF NOT EXISTS relation_mentions_chunk ON relation_mentions(chunk_id);

CREATE TABLE IF NOT EXISTS subgraphs (
    id          TEXT PRIMARY KEY,
    version     INTEGER NOT NULL,
    fingerprint TEXT NOT NULL,
    members     TEXT NOT NULL,      -- JSON list of entity keys
    updated_at  REAL NOT NULL
);

CREATE TABLE IF NOT EXISTS summaries (
    subgraph_id  TEXT PRIMARY KEY REFERENCES subgraphs(id) ON DELETE CASCADE,
    version      INTEGER NOT NULL,
    text         TEXT NOT NULL,
    top_entities TEXT NOT NULL,     -- JSON list of entity names
    n_entities   INTEGER NOT NULL,
    n_relations  INTEGER NOT NULL,
    updated_at   REAL NOT NULL
);

-- Summary changes to publish to the cloud, in order. op is 'upsert' or 'delete' (a tombstone).
CREATE TABLE IF NOT EXISTS publication_log (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    summary_id   TEXT NOT NULL,
    version      INTEGER NOT NULL,
    op           TEXT NOT NULL CHECK (op IN ('upsert', 'delete')),
    created_at   REAL NOT NULL,
    published_at REAL
);

-- What the SLM said each name (normalised) is: an entity type, or "none" (not a name). Ingest reuses these so a
-- chunk of known names costs no model call, the same whether the edge was built in one process or several.
CREATE TABLE IF NOT EXISTS name_types (
    key  TEXT PRIMARY KEY,
    type TEXT NOT NULL
);

-- Deterministic (temperature 0) model answers, so a re-run after a crash does not redo finished work.
CREATE TABLE IF NOT EXISTS llm_cache (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
