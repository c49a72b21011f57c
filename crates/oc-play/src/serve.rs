//! `oc play`'s server: one [`Session`] behind a small JSON API and one page
//! (`assets/play.html`), on 127.0.0.1 only.
//!
//! **Boundary and safety.** It listens on the loopback address only, on a free port unless one
//! is asked for, and answers only requests carrying its random token (in the address it prints,
//! like Jupyter's, or the `X-OC-Token` header), naming it as `Host` (no DNS rebinding) and, when
//! they have an `Origin`, coming from its own page. A request is answered, never fatal: bad
//! input is a 4xx with a [`Denied`] (code, message, help), a panic in a handler a 500, and the
//! game goes on. The one file it writes is the log the caller chose, atomically through
//! `oc_project::output`, after every change.
//!
//! The API: `GET /api/game` (what does not change: the map picture, the armies, the rules'
//! traits), `GET /api/state` (the [`View`]), `GET /api/history` (the steps played before the
//! state's, as they were shown: a page opened again lists the whole game), `POST /api/choices
//! {unit, equip?}`, `/api/forecast {unit, target, equip?}`, `/api/move {version, unit, to}`, `/api/step
//! {version, unit, act}` (an action of the sequence of play staged before the move), `/api/undo
//! {version}` (the move, else the last step), `/api/act {version, unit, equip?, act}` (`act` as the engine's `Act`),
//! `/api/stance {version, reaction}` (the standing reaction), `/api/end {version, unit}` and
//! `/api/quit` (the server stops).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};

mod http;

use oc_engine::battle::{Act, Tile};
use oc_model::SideId;
use oc_project::output::Target;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::Refusal;
use crate::replay_page;
use crate::session::{self, view, Denied, Session};

/// The page, with its style and script.
pub const PAGE: &str = include_str!("../assets/play.html");

/// The largest request body read (a larger one is refused, 413).
pub const MAX_BODY: u64 = 64 * 1024;

/// Where the server listens and what it writes.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The port (a free one when `None`).
    pub port: Option<u16>,
    /// The token (a random one when `None`).
    pub token: Option<String>,
    /// The log, written after every change.
    pub log: Option<Target>,
}

/// A server bound to its port, not yet serving.
pub struct Server {
    listener: std::net::TcpListener,
    port: u16,
    token: String,
    log: Option<Target>,
    /// Why the log's last write failed, while it fails: said on the terminal as it starts, and
    /// in every answer to the page (`unsaved`), until a write succeeds.
    unsaved: Option<String>,
    /// The log's lines at the last write tried (a failed one is tried again when the game has
    /// changed, not at every request).
    tried: usize,
}

/// How serving ended.
#[derive(Debug)]
pub struct Ended {
    /// Why the log's last write failed, where it did (the game went on; a later write that
    /// succeeded saved the whole log, and clears it).
    pub log_error: Option<String>,
    /// Whether the log was saved at least once (the game can be resumed from it, as far as it
    /// was saved).
    pub log_saved: bool,
}

/// A random token: 128 bits from the operating system's random keys of `RandomState`.
fn random_token() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut out = String::new();
    for k in 0..2u64 {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(k);
        h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
        h.write_u32(std::process::id());
        out.push_str(&format!("{:016x}", h.finish()));
    }
    out
}

impl Server {
    /// Binds 127.0.0.1 (`options.port`, else a free port).
    pub fn bind(options: Options) -> Result<Server, Refusal> {
        let addr = format!("127.0.0.1:{}", options.port.unwrap_or(0));
        let listener = std::net::TcpListener::bind(&addr).map_err(|e| {
            Refusal::new(format!("cannot listen on {addr}: {e}"))
                .with_help("choose another --port, or leave it out for a free one")
        })?;
        let port = listener.local_addr().map(|a| a.port()).map_err(|e| Refusal::new(format!("the server has no port: {e}")))?;
        let token = options.token.filter(|t| !t.is_empty()).unwrap_or_else(random_token);
        Ok(Server { listener, port, token, log: options.log, unsaved: None, tried: 0 })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The address to open, token included.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/?token={}", self.port, self.token)
    }

    /// Serves `session` until `/api/quit`; `say` hears what the player at the terminal must know
    /// while the game goes on (a log that stopped saving). Connections are read on threads of
    /// their own (`http::listen`), bounded in number, size and time; requests are answered
    /// here, one at a time.
    pub fn run(mut self, session: &mut Session<'_>, say: &dyn Fn(&str)) -> Ended {
        let game = Game::of(session);
        let mut ended = Ended { log_error: None, log_saved: false };
        let mut written = 0usize;
        self.write_log(session, &mut written, &mut ended, say);
        let (to_game, requests) = mpsc::channel::<http::Exchange>();
        let stop = Arc::new(AtomicBool::new(false));
        let listening = match self.listener.try_clone() {
            Ok(listener) => {
                let stop = stop.clone();
                std::thread::Builder::new()
                    .name("oc-play-listener".into())
                    .spawn(move || http::listen(listener, to_game, stop))
                    .ok()
            }
            Err(e) => {
                say(&format!("error: cannot serve: {e}"));
                None
            }
        };
        while let Ok((request, answer)) = requests.recv() {
            let mut reply = catch_unwind(AssertUnwindSafe(|| self.handle(session, &game, &request))).unwrap_or_else(|_| {
                Reply::denied(
                    500,
                    Denied::new(session::BAD_REQUEST, "the server failed on this request", "the game goes on; reload the page"),
                )
            });
            let quit = reply.quit;
            // Saved before the answer, so the answer says whether it was.
            self.write_log(session, &mut written, &mut ended, say);
            reply.note_unsaved(self.unsaved.as_deref());
            let _ = answer.send(reply.response());
            if quit {
                break;
            }
        }
        // The listener stops at its next connection: this one.
        stop.store(true, Ordering::SeqCst);
        if let Some(listening) = listening {
            // (Bounded: with the accept queue full, an unbounded connect waits for retries.)
            let at = std::net::SocketAddr::from(([127, 0, 0, 1], self.port));
            if std::net::TcpStream::connect_timeout(&at, std::time::Duration::from_millis(500)).is_ok() {
                let _ = listening.join();
            }
        }
        ended
    }

    /// Writes the log when it has grown since the last write or the last try. A failure is
    /// said once as it starts (and once more when a write succeeds again: its message names a
    /// temporary file of its own each time, so it is not what tells); every write holds the
    /// whole log, so the next one that succeeds loses nothing.
    fn write_log(&mut self, session: &Session<'_>, written: &mut usize, ended: &mut Ended, say: &dyn Fn(&str)) {
        let Some(target) = &mut self.log else { return };
        let lines = session.lines();
        if lines.len() == *written || (self.unsaved.is_some() && lines.len() == self.tried) {
            return;
        }
        self.tried = lines.len();
        match oc_project::output::write(target, (lines.join("\n") + "\n").as_bytes()) {
            Ok(()) => {
                *written = lines.len();
                ended.log_saved = true;
                *target = target.written();
                ended.log_error = None;
                if self.unsaved.take().is_some() {
                    say(&format!("note: the log is saved again in {}", target.show()));
                }
            }
            Err(e) => {
                let why = format!("cannot write {}: {e}", target.show());
                if self.unsaved.is_none() {
                    say(&format!("warning: {why}; the game goes on, and the next move that can be saved saves it whole"));
                }
                ended.log_error = Some(why.clone());
                self.unsaved = Some(why);
            }
        }
    }

    /// Whether the request may be answered: its Host, Origin and token.
    fn allowed(&self, request: &http::Request) -> Result<(), Denied> {
        let header = |name: &str| request.header(name).map(str::to_string);
        let help = "open the address `oc play` printed, token included";
        let hosts = [format!("127.0.0.1:{}", self.port), format!("localhost:{}", self.port)];
        match header("host") {
            Some(h) if hosts.contains(&h) => {}
            Some(h) => {
                return Err(Denied::new(session::FORBIDDEN, format!("the request names host `{h}`, not this server"), help))
            }
            None => return Err(Denied::new(session::FORBIDDEN, "the request names no host", help)),
        }
        if let Some(origin) = header("origin") {
            if !hosts.iter().any(|h| origin == format!("http://{h}")) {
                return Err(Denied::new(
                    session::FORBIDDEN,
                    format!("a page of another origin (`{origin}`) may not play this game"),
                    help,
                ));
            }
        }
        let query_token = request
            .url
            .split_once('?')
            .and_then(|(_, q)| q.split('&').find_map(|kv| kv.strip_prefix("token=")).map(str::to_string));
        let given = header("x-oc-token").or(query_token);
        match given {
            Some(t) if same(&t, &self.token) => Ok(()),
            Some(_) => Err(Denied::new(session::FORBIDDEN, "the request's token is not this game's", help)),
            None => Err(Denied::new(session::FORBIDDEN, "the request has no token", help)),
        }
    }

    fn handle(&self, session: &mut Session<'_>, game: &Game, request: &http::Request) -> Reply {
        if let Err(d) = self.allowed(request) {
            return Reply::denied(403, d);
        }
        let path = request.url.split('?').next().unwrap_or("").to_string();
        let method = request.method.to_ascii_uppercase();
        let body = match std::str::from_utf8(&request.body) {
            Ok(b) if method == "POST" => b.to_string(),
            Ok(_) => String::new(),
            Err(_) => {
                return Reply::denied(400, Denied::new(session::BAD_REQUEST, "the request's body is not UTF-8 text", "send JSON"))
            }
        };
        match (method.as_str(), path.as_str()) {
            ("GET", "/") | ("GET", "/index.html") => Reply::html(PAGE),
            ("GET", "/api/game") => Reply::json(game),
            ("GET", "/api/state") => Reply::json(&view::view(session)),
            ("GET", "/api/history") => Reply::json(&view::History { steps: session.earlier() }),
            ("POST", "/api/choices") => match parse::<UnitAsk>(&body) {
                Ok(a) => answer(session.choices(a.unit, a.equip.as_deref())),
                Err(d) => Reply::denied(400, d),
            },
            ("POST", "/api/forecast") => match parse::<ForecastAsk>(&body) {
                Ok(a) => answer(session.forecast(a.unit, a.target, a.equip.as_deref())),
                Err(d) => Reply::denied(400, d),
            },
            ("POST", "/api/move") => match parse::<MoveAsk>(&body) {
                Ok(a) => changed(session, |s| s.stage(a.version, a.unit, a.to)),
                Err(d) => Reply::denied(400, d),
            },
            ("POST", "/api/step") => match parse::<StepAsk>(&body) {
                Ok(a) => changed(session, |s| s.step(a.version, a.unit, a.act)),
                Err(d) => Reply::denied(400, d),
            },
            ("POST", "/api/undo") => match parse::<VersionAsk>(&body) {
                Ok(a) => changed(session, |s| s.undo(a.version)),
                Err(d) => Reply::denied(400, d),
            },
            ("POST", "/api/act") => match parse::<ActAsk>(&body) {
                Ok(a) => changed(session, |s| s.act(a.version, a.unit, a.equip.as_deref(), a.act)),
                Err(d) => Reply::denied(400, d),
            },
            ("POST", "/api/stance") => match parse::<StanceAsk>(&body) {
                Ok(a) => changed(session, |s| s.set_stance(a.version, &a.reaction)),
                Err(d) => Reply::denied(400, d),
            },
            ("POST", "/api/end") => match parse::<EndAsk>(&body) {
                Ok(a) => changed(session, |s| s.end(a.version, a.unit)),
                Err(d) => Reply::denied(400, d),
            },
            ("POST", "/api/quit") => {
                let mut r = Reply::json(&serde_json::json!({ "quit": true }));
                r.quit = true;
                r
            }
            _ => Reply::denied(
                404,
                Denied::new(session::BAD_REQUEST, format!("no endpoint {method} {path}"), "the page's requests are under /api/"),
            ),
        }
    }
}

/// Tokens compared in time independent of where they differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn parse<T: DeserializeOwned>(body: &str) -> Result<T, Denied> {
    let bad = |e: serde_json::Error| {
        Denied::new(session::BAD_REQUEST, format!("the request is not what this endpoint reads: {e}"), "send what the page sends")
    };
    let value: serde_json::Value = serde_json::from_str(body).map_err(bad)?;
    if let Some(name) = unknown_name(&value) {
        let shown: String = name.chars().take(40).collect();
        let more = if shown.len() < name.len() { "..." } else { "" };
        return Err(Denied::new(
            session::BAD_REQUEST,
            format!("nothing in this game is named `{}{more}`", shown.escape_debug()),
            "send the names the page's choices list (an item, a weapon or a tag of the unit)",
        ));
    }
    serde_json::from_value(value).map_err(bad)
}

/// The first name a request gives (an item, a weapon, a tag: `item`, `from`, `equip`,
/// `discard`) that is none of the rules' names. Those are read as interned names, which live
/// for the process: a name the rules never made is refused here, before it is made (a review
/// grew the server by 190 MB with 3,000 requests naming new items).
fn unknown_name(value: &serde_json::Value) -> Option<&str> {
    use serde_json::Value;
    match value {
        Value::Object(map) => map.iter().find_map(|(k, v)| {
            let named = matches!(k.as_str(), "item" | "from" | "equip" | "discard");
            match v {
                Value::String(s) if named => oc_model::Atom::existing(s).is_none().then_some(s.as_str()),
                Value::Array(list) if named => list
                    .iter()
                    .find_map(|x| x.as_str().filter(|s| oc_model::Atom::existing(s).is_none()))
                    .or_else(|| unknown_name(v)),
                _ => unknown_name(v),
            }
        }),
        Value::Array(list) => list.iter().find_map(unknown_name),
        _ => None,
    }
}

fn answer<T: Serialize>(r: Result<T, Denied>) -> Reply {
    match r {
        Ok(v) => Reply::json(&v),
        Err(d) => Reply::refused(d),
    }
}

/// A change, answered with the game as it stands after it.
fn changed(session: &mut Session<'_>, f: impl FnOnce(&mut Session<'_>) -> Result<(), Denied>) -> Reply {
    match f(session) {
        Ok(()) => Reply::json(&view::view(session)),
        Err(d) => Reply::refused(d),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UnitAsk {
    unit: usize,
    #[serde(default)]
    equip: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ForecastAsk {
    unit: usize,
    target: usize,
    #[serde(default)]
    equip: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveAsk {
    version: u64,
    unit: usize,
    to: Tile,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct VersionAsk {
    version: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ActAsk {
    version: u64,
    unit: usize,
    #[serde(default)]
    equip: Option<String>,
    act: Act,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StepAsk {
    version: u64,
    unit: usize,
    act: Act,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StanceAsk {
    version: u64,
    reaction: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EndAsk {
    version: u64,
    unit: usize,
}

/// An answer.
struct Reply {
    status: u16,
    body: String,
    content_type: &'static str,
    quit: bool,
}

impl Reply {
    /// Adds `unsaved` (why the log is not being saved) to a JSON answer's object, where it is not.
    fn note_unsaved(&mut self, unsaved: Option<&str>) {
        let Some(why) = unsaved.filter(|_| self.content_type == "application/json") else { return };
        if let Ok(serde_json::Value::Object(mut o)) = serde_json::from_str::<serde_json::Value>(&self.body) {
            o.insert("unsaved".into(), why.into());
            if let Ok(body) = serde_json::to_string(&o) {
                self.body = body;
            }
        }
    }

    fn json<T: Serialize + ?Sized>(v: &T) -> Reply {
        match serde_json::to_string(v) {
            Ok(body) => Reply { status: 200, body, content_type: "application/json", quit: false },
            Err(e) => Reply::denied(500, Denied::new(session::BAD_REQUEST, format!("cannot answer: {e}"), "")),
        }
    }

    fn html(page: &str) -> Reply {
        Reply { status: 200, body: page.to_string(), content_type: "text/html; charset=utf-8", quit: false }
    }

    /// A refusal of the rules or of a stale request: 409 for a stale one, 422 otherwise.
    fn refused(d: Denied) -> Reply {
        let status = if d.code == session::STALE { 409 } else { 422 };
        Reply::denied(status, d)
    }

    fn denied(status: u16, d: Denied) -> Reply {
        let body = serde_json::to_string(&serde_json::json!({ "refused": d })).unwrap_or_default();
        Reply { status, body, content_type: "application/json", quit: false }
    }

    fn response(self) -> http::Response {
        let mut headers = Vec::new();
        for (k, v) in [
            ("Content-Type", self.content_type),
            ("Cache-Control", "no-store"),
            ("X-Content-Type-Options", "nosniff"),
            (
                "Content-Security-Policy",
                "default-src 'self'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'",
            ),
        ] {
            headers.push((k, v.to_string()));
        }
        http::Response { status: self.status, headers, body: self.body.into_bytes() }
    }
}

/// What the page needs once: the map's picture (as `oc render` draws it), the armies, and the
/// traits of the rules that change what the page shows.
#[derive(Serialize)]
pub struct Game {
    pub title: String,
    pub scenario: String,
    pub map: String,
    pub width: i64,
    pub height: i64,
    /// Pixels per square of the picture.
    pub grid: u32,
    /// The map as `oc render` draws it, a `data:image/png;base64,...` URI.
    pub picture: Option<String>,
    /// Each square's terrain, and every terrain's colour (the picture's), for a map too large to draw.
    pub terrain: Vec<String>,
    pub colours: std::collections::BTreeMap<String, String>,
    pub armies: [String; 2],
    pub players: [bool; 2],
    pub ai: [String; 2],
    pub seed: u64,
    /// The ruleset's resources: (name, title).
    pub resources: Vec<(String, String)>,
    /// The ruleset's reactions taken before a strike: (name, title).
    pub reactions: Vec<(String, String)>,
    /// Activations are steps paid from this resource.
    pub spend: Option<String>,
    pub threat: bool,
    pub fog: bool,
    pub objectives: [String; 2],
    pub clock: String,
    pub briefing: String,
}

impl Game {
    pub fn of(session: &Session<'_>) -> Game {
        let setup = session.setup();
        let rules = &setup.engine.rules;
        let replay_page::Board { grid, picture, terrain, colours, resources } = replay_page::board(setup, false);
        let source = session.source();
        let s = &setup.scenario;
        Game {
            title: s.title.clone().unwrap_or_else(|| s.name.clone()),
            scenario: s.name.clone(),
            map: setup.map.name.clone(),
            width: setup.map.width,
            height: setup.map.height,
            grid,
            terrain,
            picture: picture.map(|p| p.src),
            colours,
            armies: [source.attacker.clone(), source.defender.clone()],
            players: session.players(),
            ai: [source.attacker_ai.clone(), source.defender_ai.clone()],
            seed: source.seed,
            resources,
            // The stances a side may set: reactions to a roll are taken once the dice are rolled.
            reactions: rules
                .ruleset
                .reactions
                .iter()
                .filter(|r| r.reroll.is_none())
                .map(|r| (r.name.clone(), r.title.clone().unwrap_or_else(|| r.name.clone())))
                .collect(),
            spend: rules.ruleset.turn.spend.clone(),
            threat: rules.ruleset.turn.threat.is_some(),
            fog: s.fog.is_some(),
            objectives: [SideId::Attacker, SideId::Defender].map(|side| crate::briefing::objective(s, s.side(side))),
            clock: crate::briefing::time_limit(s),
            briefing: crate::briefing::briefing(s, None),
        }
    }
}
