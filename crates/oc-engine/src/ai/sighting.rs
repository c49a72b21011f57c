//! What a side remembers of an enemy out of sight under fog: the battle's [`Sighting`] (what
//! the side last saw of it, kept after every turn), taken up by the tactician's memory
//! (`tactician/memory.rs`), read by the planner's copies (`sighting/seen.rs`) and kept in an
//! AI's mind (`recall.rs`). Its tests hold the AIs to it: an enemy changed in the dark changes
//! no decision.

pub(crate) use crate::battle::Sighting;

pub(in crate::ai) mod seen;

#[cfg(test)]
pub(crate) mod tests;
