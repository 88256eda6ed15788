//! Generational handles: a removed object's handle never finds another object.

use std::marker::PhantomData;

use super::solver::crew::Shared;

/// A slot in an [`Arena`]: the object (if alive) and the generation of the slot.
#[derive(Clone, Debug)]
struct Slot<T> {
    generation: u32,
    value: Option<T>,
}

/// Index + generation. Stale when the slot has been reused or emptied since.
#[derive(Debug)]
pub struct Handle<T> {
    index: u32,
    generation: u32,
    marker: PhantomData<fn() -> T>,
}

// Manual impls: derive would require `T: Clone` etc.
impl<T> Clone for Handle<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Handle<T> {}
impl<T> PartialEq for Handle<T> {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index && self.generation == other.generation
    }
}
impl<T> Eq for Handle<T> {}
impl<T> std::hash::Hash for Handle<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.index.hash(state);
        self.generation.hash(state);
    }
}
impl<T> PartialOrd for Handle<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Handle<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.index, self.generation).cmp(&(other.index, other.generation))
    }
}

impl<T> Handle<T> {
    /// The slot index (stable while the object lives; reused after removal).
    pub fn index(&self) -> u32 {
        self.index
    }

    /// The generation of the slot when this handle was made.
    pub fn generation(&self) -> u32 {
        self.generation
    }

    /// Rebuilds a handle from its parts (for tools and tests; lookups still check the generation).
    pub fn from_raw_parts(index: u32, generation: u32) -> Self {
        Self {
            index,
            generation,
            marker: PhantomData,
        }
    }
}

/// A vector of slots with a free list. Lookups by handle check the generation.
#[derive(Clone, Debug)]
pub struct Arena<T> {
    slots: Vec<Slot<T>>,
    free: Vec<u32>,
    len: usize,
}

impl<T> Default for Arena<T> {
    fn default() -> Self {
        Self {
            slots: Vec::new(),
            free: Vec::new(),
            len: 0,
        }
    }
}

impl<T> Arena<T> {
    /// Stores `value`, reusing a free slot if any (lowest recently freed first).
    pub fn insert(&mut self, value: T) -> Handle<T> {
        self.len += 1;
        if let Some(index) = self.free.pop() {
            let slot = &mut self.slots[index as usize];
            slot.value = Some(value);
            Handle::from_raw_parts(index, slot.generation)
        } else {
            let index = self.slots.len() as u32;
            self.slots.push(Slot {
                generation: 0,
                value: Some(value),
            });
            Handle::from_raw_parts(index, 0)
        }
    }

    /// Takes the object out; its handle (and every copy) becomes stale.
    pub fn remove(&mut self, handle: Handle<T>) -> Option<T> {
        let slot = self.slots.get_mut(handle.index as usize)?;
        if slot.generation != handle.generation || slot.value.is_none() {
            return None;
        }
        slot.generation = slot.generation.wrapping_add(1);
        self.free.push(handle.index);
        self.len -= 1;
        slot.value.take()
    }

    /// The object, if the handle is still valid.
    pub fn get(&self, handle: Handle<T>) -> Option<&T> {
        let slot = self.slots.get(handle.index as usize)?;
        if slot.generation == handle.generation {
            slot.value.as_ref()
        } else {
            None
        }
    }

    /// The object, mutably, if the handle is still valid.
    pub fn get_mut(&mut self, handle: Handle<T>) -> Option<&mut T> {
        let slot = self.slots.get_mut(handle.index as usize)?;
        if slot.generation == handle.generation {
            slot.value.as_mut()
        } else {
            None
        }
    }

    /// The object in slot `index`, whatever its generation (internal links use raw indices).
    #[inline]
    pub fn at(&self, index: u32) -> Option<&T> {
        self.slots.get(index as usize)?.value.as_ref()
    }

    /// Starts loading slot `index` into the cache (a hint: see [`super::prefetch`]).
    #[inline]
    pub(crate) fn prefetch(&self, index: u32) {
        if let Some(slot) = self.slots.get(index as usize) {
            super::prefetch::prefetch(slot);
        }
    }

    /// Mutable access by raw slot index.
    #[inline]
    pub fn at_mut(&mut self, index: u32) -> Option<&mut T> {
        self.slots.get_mut(index as usize)?.value.as_mut()
    }

    /// The current handle of the object in slot `index`.
    pub fn handle_at(&self, index: u32) -> Option<Handle<T>> {
        let slot = self.slots.get(index as usize)?;
        slot.value
            .as_ref()
            .map(|_| Handle::from_raw_parts(index, slot.generation))
    }

    /// Number of live objects.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// One past the largest slot index ever used (size for per-slot side tables).
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Live objects with their handles, in slot order (deterministic).
    pub fn iter(&self) -> impl Iterator<Item = (Handle<T>, &T)> {
        self.slots.iter().enumerate().filter_map(|(i, s)| {
            s.value
                .as_ref()
                .map(|v| (Handle::from_raw_parts(i as u32, s.generation), v))
        })
    }

    /// Live objects, mutably, with their handles, in slot order.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (Handle<T>, &mut T)> {
        self.slots.iter_mut().enumerate().filter_map(|(i, s)| {
            let generation = s.generation;
            s.value
                .as_mut()
                .map(|v| (Handle::from_raw_parts(i as u32, generation), v))
        })
    }
}

/// An arena's objects shared by the workers of one stage (`solver::crew`): each worker
/// takes slots that no other worker takes during the stage.
pub(crate) struct SharedArena<T> {
    slots: Shared<Slot<T>>,
}

impl<T> Clone for SharedArena<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for SharedArena<T> {}

impl<T> Arena<T> {
    /// Every slot, for the workers of one stage to share (see [`SharedArena`]).
    pub(crate) fn shared(&mut self) -> SharedArena<T> {
        SharedArena {
            slots: Shared::new(&mut self.slots),
        }
    }
}

impl<T> SharedArena<T> {
    /// The object in slot `index`, if any, to write.
    ///
    /// # Safety
    /// No other worker may use slot `index` while the returned reference lives.
    #[inline]
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn at_mut(&self, index: u32) -> Option<&mut T> {
        if index as usize >= self.slots.len() {
            return None;
        }
        // SAFETY: in bounds; exclusive by the caller's promise.
        unsafe { self.slots.at_mut(index as usize) }.value.as_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_handles_find_nothing() {
        let mut arena = Arena::default();
        let a = arena.insert("a");
        assert_eq!(arena.remove(a), Some("a"));
        let b = arena.insert("b");
        // Same slot, new generation: the old handle must not see "b".
        assert_eq!(a.index(), b.index());
        assert_eq!(arena.get(a), None);
        assert_eq!(arena.get(b), Some(&"b"));
        assert_eq!(arena.remove(a), None);
        assert_eq!(arena.len(), 1);
    }
}
