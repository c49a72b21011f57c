//! What an AI leaves, when dropped, to the next AI of its kind on its thread that plays with the
//! same engine (`Engine::serial`): a simulation's battles meet the same exchanges, guides and
//! strikes again and again. Greedy's caches and the tactician's (`tactician/carried.rs`) are
//! kept so, each kind on a shelf of its own: only what is a pure function of the engine and its
//! key goes there, so a value taken up is the one a fresh AI works out.

use std::cell::RefCell;
use std::thread::LocalKey;

/// A thread's kept caches of one kind, by engine (`Engine::serial`), the oldest first.
pub(super) type Shelf<T> = RefCell<Vec<(u64, T)>>;

/// Takes the caches kept on `shelf` for engine `serial` (the latest left), if any.
pub(super) fn take<T: 'static>(shelf: &'static LocalKey<Shelf<T>>, serial: u64) -> Option<T> {
    shelf
        .try_with(|k| {
            let mut k = k.borrow_mut();
            k.iter().rposition(|(s, _)| *s == serial).map(|at| k.remove(at).1)
        })
        .ok()
        .flatten()
}

/// Leaves `kept`, worked out with engine `serial`, on `shelf`: at most `most` there, the oldest
/// forgotten first.
pub(super) fn leave<T: 'static>(shelf: &'static LocalKey<Shelf<T>>, serial: u64, kept: T, most: usize) {
    let _ = shelf.try_with(|k| {
        let mut k = k.borrow_mut();
        if k.len() >= most {
            k.remove(0);
        }
        k.push((serial, kept));
    });
}
