//! Copies of a battle: the forks an AI plays ahead on (with the battle's dice or their own,
//! made anew or into a copy done with), quiet copies whose log no one reads ([`Battle::hush`]),
//! and battles played unlogged ([`Battle::unlogged`]).

use super::{Battle, BattleState};

impl<'e> Battle<'e> {
    /// A copy of the battle as it stands, without its log: what an AI plays ahead on (the
    /// battle itself is not changed). It rolls its dice from `seed`, or, with `None`, goes on
    /// with the battle's own (then it plays on exactly as the battle would).
    pub fn fork(&self, seed: Option<u64>) -> Battle<'e> {
        let mut state = self.state.clone();
        if let Some(seed) = seed {
            state.rng = crate::dice::rng(seed);
        }
        let mut b = self.with_state(state);
        b.own_dice = self.carries(seed);
        b
    }

    /// Whether a copy made of this battle with `seed` goes on with its played dice (noted:
    /// `dice::carry`).
    pub(super) fn carries(&self, seed: Option<u64>) -> bool {
        let carried = self.own_dice && seed.is_none();
        if carried {
            crate::dice::carry();
        }
        carried
    }

    /// [`Battle::fork`] made into `into`, an earlier copy done with: its units' names and
    /// lists, its log's and its undo's buffers are used again (a refused turn's undo is read only
    /// after a turn copies into it).
    pub(crate) fn fork_again(&self, into: &mut Battle<'e>, seed: Option<u64>) {
        into.state.clone_from(&self.state);
        if let Some(seed) = seed {
            into.state.rng = crate::dice::rng(seed);
        }
        into.own_dice = self.carries(seed);
        into.engine = self.engine;
        into.scenario.clone_from(&self.scenario);
        into.log.clear();
        into.terrain_undo.clear();
        into.quiet = self.quiet;
        into.silent = self.silent;
        into.weakest = self.weakest;
        into.laws = self.laws;
    }

    /// This battle in `state`, with an empty log: what [`Battle::fork`] makes of a state.
    pub(crate) fn with_state(&self, state: BattleState) -> Battle<'e> {
        Battle {
            engine: self.engine,
            scenario: self.scenario.clone(),
            state,
            log: Vec::new(),
            terrain_undo: Vec::new(),
            units_undo: Vec::new(),
            quiet: self.quiet,
            silent: self.silent,
            weakest: self.weakest,
            laws: self.laws,
            own_dice: self.own_dice,
        }
    }

    /// Makes the battle a quiet copy (an AI's playout): from now on it leaves out of its log
    /// what only the log shows (the `seen` records, the words of the strikes, the refills of
    /// resources), and what it keeps for them alone (what each side last saw). Everything else
    /// plays as before: the same dice, the same units, the same outcome.
    pub(crate) fn hush(&mut self) {
        self.quiet = true;
        self.state.sighted = Default::default();
    }

    /// Makes the battle one whose log no one reads (a simulation's game, [`super::play_unlogged`]):
    /// from now on its log shows no words of the strikes. The same turns, dice and outcome.
    pub(crate) fn unlogged(&mut self) {
        self.silent = true;
    }

    /// Whether the words of the strikes are worked out: not in a quiet copy nor an unlogged
    /// battle.
    pub(super) fn words(&self) -> bool {
        !self.quiet && !self.silent
    }

    /// How many words of randomness the battle's dice have drawn since it was set up or forked
    /// with dice of its own (`fork(Some(_))`): 0 if nothing was left to chance.
    pub fn drawn(&self) -> u128 {
        self.state.rng.get_word_pos()
    }
}
