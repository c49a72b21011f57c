//! Why a play request was refused ([`Denied`]: a stable code, what went wrong, what to do), and
//! the session's own codes (`oc explain`).

use oc_engine::battle::BattleError;
use serde::Serialize;

/// Refusal codes of a play session (`oc explain`); the engine's own (`oc::battle::*`) name the
/// rule a refused turn broke.
pub const STALE: &str = "oc::play::stale";
pub const NOT_YOURS: &str = "oc::play::not_yours";
pub const BAD_REQUEST: &str = "oc::play::bad_request";
pub const FORBIDDEN: &str = "oc::play::forbidden";
pub const RESUME: &str = "oc::play::resume";

pub const CODES: &[oc_diag::CodeInfo] = &[
    oc_diag::CodeInfo {
        code: STALE,
        title: "a play request for a game that has moved on",
        explanation: "Every request of `oc play`'s page that changes the game names the game's version (a count of \
its changes). A request naming another version was made from an old page (another tab, a request sent twice) \
and is refused, so that a click never plays a turn on a board the player did not see.\n\nFix: reload the page; \
it shows the game as it stands.",
    },
    oc_diag::CodeInfo {
        code: NOT_YOURS,
        title: "a play request for a unit or side the player does not control",
        explanation: "`oc play --side attacker|defender|both` says which sides the person plays; the AI plays the \
others. A request to move, act with or forecast for a unit of the AI's side, a unit that cannot act now, or a \
unit the player's side does not see is refused.\n\nFix: select one of your units that may act (the page marks \
them), on your side's turn.",
    },
    oc_diag::CodeInfo {
        code: BAD_REQUEST,
        title: "a play request the server cannot read",
        explanation: "The page talks to `oc play` with small JSON requests (`/api/act`, `/api/move`, ...). A request \
that is not JSON of the expected shape, names an unknown endpoint, or is too large is refused; the game goes \
on.\n\nFix: use the page `oc play` serves; a script should send what the page sends.",
    },
    oc_diag::CodeInfo {
        code: FORBIDDEN,
        title: "a play request without the game's token, or from another site",
        explanation: "`oc play` listens on 127.0.0.1 only and prints its address with a random token (as Jupyter \
does). A request without that token, with another `Host` (a DNS rebinding attack) or from a page of another \
origin is refused, so that no other web page or local user's browser tab can play or read the game.\n\nFix: \
open the address `oc play` printed, token included.",
    },
    oc_diag::CodeInfo {
        code: RESUME,
        title: "a saved game that cannot be resumed",
        explanation: "`oc play --resume LOG` plays the log again (the AI choosing its turns anew, the player's turns \
read from the log) and goes on from where it stopped. A log that is not a game `oc play` wrote, or whose replay \
differs from it (the rules, the scenario or the armies changed since, or the log was edited), cannot be resumed.\n\n\
Fix: resume with the rules the game was played under, or start a new game.",
    },
];

/// Why a request was refused: a stable code, what went wrong (naming the rule), what to do.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Denied {
    pub code: String,
    pub message: String,
    pub help: String,
}

impl Denied {
    pub fn new(code: &str, message: impl Into<String>, help: impl Into<String>) -> Denied {
        Denied { code: code.to_string(), message: message.into(), help: help.into() }
    }

    pub(super) fn battle(e: &BattleError) -> Denied {
        match e {
            BattleError::Refused { rule, why } => Denied::new(rule.code(), why.clone(), rule.help()),
            BattleError::Engine(x) => Denied::new(x.code(), x.to_string(), "the rules cannot play this; see `oc explain`"),
        }
    }
}

impl std::fmt::Display for Denied {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} [{}]", self.message, self.code)
    }
}
