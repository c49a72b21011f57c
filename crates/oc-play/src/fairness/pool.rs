//! The games of every pair measured in one pool: a pair's games once waited for the last of
//! them before the next pair's began, each pair leaving a core idle at its end (and a run of a
//! game a pair played its scenarios one at a time). Here a free thread takes the next game in
//! the pairs' order, the next pair's as soon as the last of a pair's is under way, so only the
//! run's last game can leave a core idle; a pair's setup (its engine and the caches its games
//! grew) is let go once its last game ends and it is heard (pairs are heard in order). Which
//! thread plays a game, and when, changes no result: a game is a function of its seed and its
//! number (the engine's caches give the bits they would work out); the rows, and the line said
//! for each pair, come in the pairs' order.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use oc_engine::battle::GameResult;

use crate::error::Refusal;
use crate::setup::Setup;

/// One pair of armies to measure: its setup and the games (numbers) it plays.
pub(super) struct Pending {
    pub setup: Setup,
    pub games: Vec<u64>,
}

/// What the pool knows of one pair as its games are played.
#[derive(Default)]
struct Progress {
    /// The next of its games to hand out.
    next: usize,
    /// Its games played and their time summed.
    done: usize,
    spent: Duration,
    /// Each game's result, by its place in the pair's games.
    results: Vec<Option<Result<GameResult, String>>>,
}

struct Board {
    pairs: Vec<Progress>,
    /// The setups, each dropped once its games are played (its engine's caches with it).
    setups: Vec<Option<Arc<Setup>>>,
    /// The first pair (in order) a game of which failed: no game of a later pair is handed out.
    failed: Option<usize>,
}

impl Board {
    /// The next game to play: the next of the first pair (in order) with games not yet handed
    /// out (none of a pair after one whose game failed).
    fn pick(&mut self, games: &[Vec<u64>]) -> Option<(usize, usize, Arc<Setup>)> {
        let failed = self.failed;
        let k = self
            .pairs
            .iter()
            .enumerate()
            .position(|(k, p)| p.next < games.get(k).map_or(0, Vec::len) && failed.is_none_or(|f| k <= f))?;
        let setup = self.setups.get(k)?.clone()?;
        let p = self.pairs.get_mut(k)?;
        p.next += 1;
        Some((k, p.next - 1, setup))
    }
}

/// The pair's results in its games' order and the time its games took, summed (they share the
/// threads with other pairs' games), or the first of its games (in order) that failed.
pub(super) type Played = Result<(Vec<GameResult>, Duration), String>;

/// Plays every pair's games from `seed` on as many threads as rayon's pool has (threads of
/// their own: the caller may be one of the pool's), `tick` after each game; `done` hears each
/// pair's results, in the pairs' order, as soon as it and every pair before it are played. The
/// first `Err` of `done` (a failed game: its refusal) stops the run: no later pair is heard.
pub(super) fn play(
    pending: Vec<Pending>,
    seed: u64,
    tick: &(dyn Fn() + Sync),
    done: &mut dyn FnMut(&Setup, Played) -> Result<(), Refusal>,
) -> Result<(), Refusal> {
    let games: Vec<Vec<u64>> = pending.iter().map(|p| p.games.clone()).collect();
    let setups: Vec<Arc<Setup>> = pending.into_iter().map(|p| Arc::new(p.setup)).collect();
    let pairs = games.iter().map(|g| Progress { results: g.iter().map(|_| None).collect(), ..Progress::default() }).collect();
    let board = Mutex::new(Board { pairs, setups: setups.iter().cloned().map(Some).collect(), failed: None });
    let (sender, receiver) = std::sync::mpsc::channel::<usize>();
    std::thread::scope(|scope| {
        for _ in 0..rayon::current_num_threads().max(1) {
            let sender = sender.clone();
            let (games, board) = (&games, &board);
            scope.spawn(move || work(board, games, seed, tick, &sender));
        }
        drop(sender);
        // Each pair heard in order, as soon as it and those before it are played (a pair with no
        // games as soon as it is reached).
        let mut finished: Vec<bool> = games.iter().map(Vec::is_empty).collect();
        // Each setup let go once heard: the board's goes with its last game, so a pair's engine
        // (and its caches) is not held past it.
        for (k, setup) in setups.into_iter().enumerate() {
            while !finished.get(k).copied().unwrap_or(true) {
                match receiver.recv() {
                    Ok(j) => {
                        if let Some(f) = finished.get_mut(j) {
                            *f = true;
                        }
                    }
                    Err(_) => break,
                }
            }
            let played = lock(&board).pairs.get_mut(k).map_or(Err("not played".to_string()), Progress::take);
            if let Err(e) = done(&setup, played) {
                // Nothing more is handed out; the games under way end, unheard.
                lock(&board).setups.iter_mut().for_each(|s| *s = None);
                return Err(e);
            }
        }
        Ok(())
    })
}

fn lock(board: &Mutex<Board>) -> std::sync::MutexGuard<'_, Board> {
    board.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Progress {
    /// The pair's results, taken: in its games' order, or the first failure.
    fn take(&mut self) -> Played {
        let time = self.spent;
        let results = std::mem::take(&mut self.results);
        results
            .into_iter()
            .map(|r| r.unwrap_or_else(|| Err("a game was not played".into())))
            .collect::<Result<Vec<_>, _>>()
            .map(|r| (r, time))
    }
}

/// One thread's part: games taken from the board until none is left, each one's result put
/// back, and each pair whose games are all played sent on.
fn work(board: &Mutex<Board>, games: &[Vec<u64>], seed: u64, tick: &(dyn Fn() + Sync), sender: &std::sync::mpsc::Sender<usize>) {
    loop {
        let Some((k, at, setup)) = lock(board).pick(games) else { break };
        let g = games.get(k).and_then(|g| g.get(at)).copied().unwrap_or(0);
        let started = Instant::now();
        let played = setup.result(seed, g);
        drop(setup);
        tick();
        let mut b = lock(board);
        if played.is_err() {
            b.failed = Some(b.failed.map_or(k, |f| f.min(k)));
        }
        let Some(p) = b.pairs.get_mut(k) else { break };
        p.spent += started.elapsed();
        p.done += 1;
        if let Some(slot) = p.results.get_mut(at) {
            *slot = Some(played);
        }
        if p.done == p.results.len() {
            if let Some(s) = b.setups.get_mut(k) {
                *s = None;
            }
            let _ = sender.send(k);
        }
    }
}
