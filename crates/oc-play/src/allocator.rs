//! The allocator of every program that plays battles through this crate (`oc`, its tests):
//! mimalloc. A battle and its AIs make and drop many small vectors and maps, and the system
//! allocator took about a sixth of `oc simulate`'s time.
//!
//! Blocks are asked for as `malloc` asks (`mi_malloc`) wherever that gives the alignment the
//! layout needs (at most 16 bytes, `MI_MAX_ALIGN_SIZE`, and at most the block's size: nearly
//! every block), the others with their alignment, through the `mimalloc` crate's allocator. That
//! allocator asks for every block with its alignment (`mi_malloc_aligned`), whose way past the
//! blocks of at most 1 KiB whose free block happens to be aligned is mimalloc's slow, generic one:
//! 1.8 million blocks of `oc fairness scenarios --games 20` took it, at about 195 instructions
//! each. Callgrind, one thread, that run: 18,249.3M -> 17,924.3M instructions (-1.8%); the same
//! games.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::{c_int, c_long, c_void};

#[global_allocator]
static ALLOCATOR: Allocator = Allocator;

extern "C" {
    /// mimalloc's `mi_option_set` (in the C library the `mimalloc` crate links).
    fn mi_option_set(option: c_int, value: c_long);
    /// mimalloc's `mi_malloc`, `mi_zalloc` and `mi_realloc`: blocks aligned to the smaller of
    /// their size and [`MI_ALIGN`].
    fn mi_malloc(size: usize) -> *mut c_void;
    fn mi_zalloc(size: usize) -> *mut c_void;
    fn mi_realloc(p: *mut c_void, newsize: usize) -> *mut c_void;
}

/// The alignment `mi_malloc` gives every block of at least as many bytes (`MI_MAX_ALIGN_SIZE`
/// in the vendored v2 and v3 alike): mimalloc sizes a block of more than one word in whole double
/// words (`MI_ALIGN2W` on 64-bit targets, `MI_ALIGN4W` on 32-bit ones: `mi_bin` in
/// `page-queue.c`) from a page start aligned to it, so a block of more than 8 bytes is aligned to
/// 16 and any block to a word. (The `mimalloc` crate gave up the same test in 0.1.39 for the
/// `secure` build's padding, which this crate does not build with: `default-features = false`.)
const MI_ALIGN: usize = 16;

/// mimalloc, asked for most blocks as `malloc` is (see the module's note). Every block is freed
/// by `mi_free`, which takes blocks of both kinds.
struct Allocator;

/// Whether `mi_malloc` gives a block of `size` bytes the alignment `align`.
fn plain(align: usize, size: usize) -> bool {
    align <= MI_ALIGN && align <= size
}

// SAFETY: every block comes from mimalloc: from `mi_malloc`, `mi_zalloc` or `mi_realloc` where
// the alignment they give meets the layout's (`plain`), else from the `mimalloc` crate's
// allocator, which asks for it aligned. `mi_free` (the crate's `dealloc`) frees either kind.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if plain(layout.align(), layout.size()) {
            // SAFETY: an allocation of the layout's size, aligned as it asks (`plain`).
            unsafe { mi_malloc(layout.size()).cast() }
        } else {
            // SAFETY: the caller's layout, passed on.
            unsafe { mimalloc::MiMalloc.alloc(layout) }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if plain(layout.align(), layout.size()) {
            // SAFETY: a zeroed allocation of the layout's size, aligned as it asks (`plain`).
            unsafe { mi_zalloc(layout.size()).cast() }
        } else {
            // SAFETY: the caller's layout, passed on.
            unsafe { mimalloc::MiMalloc.alloc_zeroed(layout) }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, so from mimalloc.
        unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if plain(layout.align(), new_size) {
            // SAFETY: `ptr` came from mimalloc; the new block is aligned as the layout asks.
            unsafe { mi_realloc(ptr.cast(), new_size).cast() }
        } else {
            // SAFETY: the caller's arguments, passed on.
            unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) }
        }
    }
}

/// Tells mimalloc to keep the pages freed memory leaves (`mi_option_purge_delay`, option 15 in
/// the vendored v2 and v3 alike, set to -1) rather than hand them back to the system 10 ms later:
/// games free and take back the same memory over and over, and each page handed back was
/// faulted in and zeroed anew (about 15,000 page faults for 150 greedy games of ten against
/// ten, 480 kept). The memory held stays what the run's peak took. Set once, before the games
/// (`simulate::run`, `fairness::measure_file`, `tournament::play`).
pub(crate) fn hold_freed_pages() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    // SAFETY: sets one integer option of the allocator, a call mimalloc allows at any time.
    ONCE.call_once(|| unsafe { mi_option_set(15, -1) });
}

#[cfg(test)]
mod tests {
    #![allow(clippy::indexing_slicing)]

    use super::*;

    /// Every alignment a layout may ask for up to a page, with sizes around each and around
    /// mimalloc's size classes (small, past 1 KiB, past the medium blocks): each block is aligned
    /// as asked, holds what is written to it, keeps it when grown or shrunk (again aligned), and
    /// a zeroed one reads zero. Blocks taken plain and aligned are freed alike.
    #[test]
    fn blocks_are_aligned_and_keep_what_they_hold() {
        let sizes = [1, 2, 3, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 48, 63, 64, 65, 100, 1000, 1024, 1025, 4096, 4097, 70_000];
        let mut checked = 0;
        for align in (0..=12).map(|k| 1usize << k) {
            for &size in &sizes {
                let Ok(layout) = Layout::from_size_align(size, align) else { continue };
                // SAFETY: a non-zero layout; each block is freed once, with the layout it was
                // taken or last grown to.
                unsafe {
                    let fill = |p: *mut u8, n: usize| (0..n).for_each(|k| *p.add(k) = (k % 251) as u8);
                    let p = ALLOCATOR.alloc(layout);
                    assert!(!p.is_null(), "{size} bytes aligned to {align}");
                    assert_eq!(p as usize % align, 0, "{size} bytes aligned to {align}");
                    fill(p, size);
                    // Grown, then shrunk.
                    let (mut p, mut held) = (p, size);
                    for new in [size * 3 + 5, size.div_ceil(2)] {
                        let q = ALLOCATOR.realloc(p, Layout::from_size_align_unchecked(held, align), new);
                        assert!(!q.is_null());
                        assert_eq!(q as usize % align, 0, "{held} -> {new} bytes aligned to {align}");
                        for k in 0..held.min(new) {
                            assert_eq!(*q.add(k), (k % 251) as u8, "{held} -> {new} bytes aligned to {align}, byte {k}");
                        }
                        fill(q, new);
                        (p, held) = (q, new);
                    }
                    ALLOCATOR.dealloc(p, Layout::from_size_align_unchecked(held, align));
                    let z = ALLOCATOR.alloc_zeroed(layout);
                    assert_eq!(z as usize % align, 0);
                    assert!((0..size).all(|k| *z.add(k) == 0), "{size} zeroed bytes aligned to {align}");
                    ALLOCATOR.dealloc(z, layout);
                }
                checked += 1;
            }
        }
        assert!(checked > 250, "{checked} layouts");
        // Many blocks of one layout held at once (each from the next free slot of its page, not
        // the one just freed): every size to 300 bytes, and past the small and medium blocks,
        // at the alignments taken plain and the first taken aligned.
        let sizes = (1..=300).chain([1023, 1024, 1025, 4095, 4096, 4097, 65_535, 65_536, 65_537, 600_000]);
        for size in sizes {
            for align in [1, 2, 4, 8, 16, 32] {
                let Ok(layout) = Layout::from_size_align(size, align) else { continue };
                let held = if size > 4097 { 4 } else { 64 };
                // SAFETY: a non-zero layout; each block is freed once, with it.
                unsafe {
                    let blocks: Vec<*mut u8> = (0..held).map(|_| ALLOCATOR.alloc(layout)).collect();
                    for p in &blocks {
                        assert!(!p.is_null());
                        assert_eq!(*p as usize % align, 0, "{size} bytes aligned to {align}, {held} held at once");
                    }
                    for p in blocks {
                        ALLOCATOR.dealloc(p, layout);
                    }
                }
            }
        }
        // Most layouts Rust asks for are taken plain; the rest aligned.
        assert!(plain(8, 24) && plain(16, 16) && !plain(32, 64) && !plain(16, 8));
    }
}
