//! Contact bookkeeping of the world: new pairs from the broad phase become contacts, each
//! body threads its contacts through an intrusive list, and the narrow phase refreshes the
//! manifold of every contact with an awake body (phases 1 and 2 of a step).

use crate::physics::body::{Body, BodyType, NULL};
use crate::physics::broad_phase::BroadPhase;
use crate::physics::collider::{Collider, MixedMaterial};
use crate::physics::constants::{MAX_SPECULATIVE_DISTANCE, SPECULATIVE_DISTANCE};
use crate::physics::contact::{
    cheap_to_test, prefetch_ahead, ActiveInfo, Contact, ContactEdge, ContactHandles, ManifoldCache,
};
use crate::physics::handle::Arena;
use crate::physics::math::Vec3;
use crate::physics::narrow_phase::{collide, collide_into, Manifold, Scratch};
use crate::physics::solver::crew::{append_in_order, for_each_block, Shared};
use crate::physics::world::{ContactBegin, ContactEvents, ContactPair, World};

/// What [`World::try_create_contact`] did with a pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NewContact {
    Created,
    /// Already there, or not wanted (same body, nothing dynamic, a collider gone).
    NotNeeded,
    /// Refused by [`WorldSettings::max_contacts_per_body`](crate::physics::WorldSettings).
    Capped,
}

/// The contact phases' buffers.
#[derive(Default)]
pub(crate) struct ContactScratch {
    /// New pairs of overlapping fat boxes found by the broad phase (collider slots).
    pub new_pairs: Vec<(u32, u32)>,
    /// The narrow phase's results, one per piece of the contact list.
    pub narrow_chunks: Vec<NarrowChunk>,
    /// Contacts whose fat boxes stopped overlapping (contact ids), merged from the pieces.
    pub to_destroy: Vec<u32>,
    /// Sleeping bodies an awake one touches (body slots), merged from the pieces; sleep
    /// reuses it for the bodies a moving kinematic body carries.
    pub to_wake: Vec<u32>,
    /// The touching contacts after the contact update, in the order of the active list.
    pub touching: Vec<ActiveInfo>,
    /// Where each piece's events start in the step's event lists (`append_in_order`).
    pub event_offsets: Vec<usize>,
}

impl World {
    /// Phase 1: asks the broad phase for new pairs and creates their contacts.
    /// Pairs refused by the contact cap are retried first, in the order they were refused.
    pub(crate) fn update_pairs(&mut self) {
        if !self.capped_pairs.is_empty() {
            self.retry_capped_pairs();
        }
        let mut pairs = std::mem::take(&mut self.scratch.contacts.new_pairs);
        pairs.clear();
        self.broad_phase
            .update_pairs(&mut |a, b| pairs.push((a, b)));
        self.counters.broad_phase_tests = self.broad_phase.pair_tests();
        for &(a, b) in &pairs {
            if self.try_create_contact(a, b) == NewContact::Capped {
                self.capped_pairs.insert(a, b);
            }
        }
        self.scratch.contacts.new_pairs = pairs;
        self.counters.capped_pairs = self.capped_pairs.len();
    }

    /// Gives every capped pair another try. A pair whose collider is gone or whose fat AABBs
    /// stopped overlapping leaves the list: the broad phase reports it again if they meet.
    fn retry_capped_pairs(&mut self) {
        let mut capped = std::mem::take(&mut self.capped_pairs);
        capped.retain(|a, b| {
            let (Some(col_a), Some(col_b)) = (self.colliders.at(a), self.colliders.at(b)) else {
                return false;
            };
            let fat_a = self.broad_phase.fat_aabb(col_a.proxy);
            if !fat_a.overlaps(&self.broad_phase.fat_aabb(col_b.proxy)) {
                return false;
            }
            self.try_create_contact(a, b) == NewContact::Capped
        });
        self.capped_pairs = capped;
    }

    /// Creates the contact between two collider slots if it may exist and does not yet, unless
    /// both bodies are dynamic and one of them is at the contact cap.
    pub(crate) fn try_create_contact(&mut self, ca: u32, cb: u32) -> NewContact {
        let (Some(col_a), Some(col_b)) = (self.colliders.at(ca), self.colliders.at(cb)) else {
            return NewContact::NotNeeded;
        };
        if col_a.body == col_b.body
            || (col_a.sensor && col_b.sensor)
            || !col_a.filter.allows(col_b.filter)
            || self.contacts.find(ca, cb).is_some()
        {
            return NewContact::NotNeeded;
        }
        let (Some(body_a), Some(body_b)) = (self.bodies.at(col_a.body), self.bodies.at(col_b.body))
        else {
            return NewContact::NotNeeded;
        };
        // Only pairs where something can be pushed matter, or, with a sensor, where
        // something moves: a kinematic body (a walking player) entering a static sensor (a
        // coin) is an event.
        let moving = |b: &crate::physics::body::Body| {
            b.body_type() != crate::physics::body::BodyType::Static
        };
        let needed = if col_a.sensor || col_b.sensor {
            moving(body_a) || moving(body_b)
        } else {
            body_a.is_dynamic() || body_b.is_dynamic()
        };
        if !needed {
            return NewContact::NotNeeded;
        }
        if self.joined_without_contact(col_a.body, col_b.body) {
            return NewContact::NotNeeded;
        }
        let cap = self.settings.max_contacts_per_body;
        if body_a.is_dynamic()
            && body_b.is_dynamic()
            && (body_a.contact_count >= cap || body_b.contact_count >= cap)
        {
            return NewContact::Capped;
        }
        let material = MixedMaterial::of(col_a, col_b);
        let sensor = col_a.sensor || col_b.sensor;
        let handle = |c, b| {
            (
                self.colliders.handle_at(c).expect("live collider"),
                self.bodies.handle_at(b).expect("live body"),
            )
        };
        let ((collider_a, body_a), (collider_b, body_b)) =
            (handle(ca, col_a.body), handle(cb, col_b.body));
        let handles = ContactHandles {
            colliders: [collider_a, collider_b],
            bodies: [body_a, body_b],
        };
        let id = self.contacts.create(handles, material, sensor);
        self.link_contact(id);
        NewContact::Created
    }

    /// The contact edge `key` (contact id << 1 | side).
    fn edge_mut(&mut self, key: u32) -> &mut ContactEdge {
        &mut self.contacts.slots[(key >> 1) as usize].edges[(key & 1) as usize]
    }

    /// Pushes both sides of contact `id` at the front of their bodies' lists.
    fn link_contact(&mut self, id: u32) {
        for side in 0..2u32 {
            let key = id << 1 | side;
            let body_index = self.contacts.slots[id as usize].edges[side as usize].body;
            let Some(body) = self.bodies.at_mut(body_index) else {
                continue;
            };
            let head = body.contact_head;
            body.contact_head = key;
            body.contact_count += 1;
            let edge = self.edge_mut(key);
            edge.prev = NULL;
            edge.next = head;
            if head != NULL {
                self.edge_mut(head).prev = key;
            }
        }
    }

    /// Takes both sides of contact `id` out of their bodies' lists.
    fn unlink_contact(&mut self, id: u32) {
        for side in 0..2u32 {
            let edge = self.contacts.slots[id as usize].edges[side as usize];
            if edge.prev != NULL {
                self.edge_mut(edge.prev).next = edge.next;
            } else if let Some(body) = self.bodies.at_mut(edge.body) {
                body.contact_head = edge.next;
            }
            if edge.next != NULL {
                self.edge_mut(edge.next).prev = edge.prev;
            }
            if let Some(body) = self.bodies.at_mut(edge.body) {
                body.contact_count -= 1;
            }
        }
    }

    /// Destroys contact `id`, reporting an end event if it was touching (a sensor end event
    /// if its shapes overlapped).
    pub(crate) fn destroy_contact(&mut self, id: u32) {
        let c = &self.contacts.slots[id as usize];
        if c.touching || c.overlapping {
            let pair = self.contact_pair(c);
            let list = match (c.overlapping, self.stepping) {
                (false, true) => &mut self.events.end,
                (false, false) => &mut self.pending_end,
                (true, true) => &mut self.events.sensor_end,
                (true, false) => &mut self.pending_sensor_end,
            };
            list.push(pair);
        }
        self.unlink_contact(id);
        self.contacts.destroy(id);
    }

    /// The handles of a contact's colliders and bodies.
    fn contact_pair(&self, c: &Contact) -> ContactPair {
        make_pair(c)
    }

    /// Destroys the contacts between body slots `a` and `b` (a joint now keeps them apart).
    pub(crate) fn destroy_contacts_between(&mut self, a: u32, b: u32) {
        let mut ids = Vec::new();
        self.body_contacts(a, &mut ids);
        for id in ids {
            let edges = &self.contacts.slots[id as usize].edges;
            if edges[0].body == b || edges[1].body == b {
                self.destroy_contact(id);
            }
        }
    }

    /// Puts every collider of body slot `index` into the broad phase's move buffer, so its
    /// pairs are reported again at the next step.
    pub(crate) fn touch_body_proxies(&mut self, index: u32) {
        let Some(body) = self.bodies.at(index) else {
            return;
        };
        for &ci in &body.colliders {
            if let Some(c) = self.colliders.at(ci) {
                self.broad_phase.touch_proxy(c.proxy);
            }
        }
    }

    /// Contact ids of a body, following its intrusive list.
    pub(crate) fn body_contacts(&self, body: u32, out: &mut Vec<u32>) {
        out.clear();
        let Some(b) = self.bodies.at(body) else {
            return;
        };
        let mut key = b.contact_head;
        while key != NULL {
            out.push(key >> 1);
            key = self.contacts.slots[(key >> 1) as usize].edges[(key & 1) as usize].next;
        }
    }

    /// Drops the kept manifolds of a body's contacts (its shape changed), so the next step
    /// tests them again.
    pub(crate) fn forget_manifolds(&mut self, body: u32) {
        let mut ids = Vec::new();
        self.body_contacts(body, &mut ids);
        for id in ids {
            self.contacts.slots[id as usize].cache = None;
        }
    }

    /// Phase 2: recomputes the manifold of every contact with an awake body.
    pub(crate) fn update_contacts(&mut self, dt: f32) {
        self.scratch.contacts.to_destroy.clear();
        self.scratch.contacts.to_wake.clear();
        let chunks = self.contacts.active.len().div_ceil(NARROW_CHUNK);
        let outs = &mut self.scratch.contacts.narrow_chunks;
        if outs.len() < chunks {
            outs.resize_with(chunks, NarrowChunk::default);
        }
        let env = NarrowEnv {
            bodies: &self.bodies,
            colliders: &self.colliders,
            broad_phase: &*self.broad_phase,
            slots: Shared::new(&mut self.contacts.slots),
            dt,
            reuse_manifolds: self.settings.reuse_manifolds,
        };
        let outs = &mut outs[..chunks];
        let count = self.contacts.active.len();
        let infos = Shared::new(&mut self.contacts.active);
        let outs = Shared::new(outs);
        let piece = |k: usize| {
            let range = k * NARROW_CHUNK..((k + 1) * NARROW_CHUNK).min(count);
            // SAFETY: piece k is taken by one worker; the pieces split the active list, which
            // names every contact once.
            unsafe {
                let out = outs.at_mut(k);
                out.clear();
                env.update_chunk(infos.slice(range), out);
            }
        };
        if chunks >= MIN_CHUNKS_TO_SHARE {
            for_each_block(chunks, 1, &|r| r.for_each(piece));
        } else {
            (0..chunks).for_each(piece);
        }
        // The chunks' results in the order of the contacts, as one pass over them gives.
        let (mut tests, mut reused, mut manifolds, mut points) = (0, 0, 0, 0);
        let scratch = &mut self.scratch;
        let events = &mut self.events;
        let outs = &scratch.contacts.narrow_chunks[..chunks];
        for out in outs {
            tests += out.tests;
            reused += out.reused;
            manifolds += out.manifolds;
            points += out.points;
            scratch
                .contacts
                .to_destroy
                .extend_from_slice(&out.to_destroy);
            scratch.contacts.to_wake.extend_from_slice(&out.to_wake);
        }
        // The events, on the team when there are many (every touching contact persists).
        let offsets = &mut scratch.contacts.event_offsets;
        append_in_order(
            &mut events.begin,
            chunks,
            &|k| &outs[k].events.begin,
            offsets,
        );
        append_in_order(
            &mut events.persist,
            chunks,
            &|k| &outs[k].events.persist,
            offsets,
        );
        append_in_order(&mut events.end, chunks, &|k| &outs[k].events.end, offsets);
        let sensor_begin = |k: usize| outs[k].events.sensor_begin.as_slice();
        append_in_order(&mut events.sensor_begin, chunks, &sensor_begin, offsets);
        let sensor_end = |k: usize| outs[k].events.sensor_end.as_slice();
        append_in_order(&mut events.sensor_end, chunks, &sensor_end, offsets);
        self.counters.pair_tests = tests;
        self.counters.manifolds_reused = reused;
        self.counters.manifolds = manifolds;
        self.counters.contact_points = points;
        let to_destroy = std::mem::take(&mut self.scratch.contacts.to_destroy);
        for &id in &to_destroy {
            self.destroy_contact(id);
        }
        self.scratch.contacts.to_destroy = to_destroy;
        // The touching contacts, in the order of `active` after the removals: what the
        // islands, the solver's gather and sleep walk.
        self.contacts
            .touching_into(&mut self.scratch.contacts.touching);
        let to_wake = std::mem::take(&mut self.scratch.contacts.to_wake);
        for &body in &to_wake {
            self.wake_body_index(body);
        }
        self.scratch.contacts.to_wake = to_wake;
    }
}

/// Fewest pieces the narrow phase shares with the team (512 contacts): fewer are done
/// sooner here than the team is woken.
const MIN_CHUNKS_TO_SHARE: usize = 8;

/// Contacts per piece of the narrow phase's work. The pieces are cut from the list of live
/// contacts whatever the thread count, so their results, merged in order, are the same at
/// any count; a piece is a few tens of microseconds of collision tests, so a pool's threads
/// share even a few hundred contacts.
const NARROW_CHUNK: usize = 64;

/// What the narrow phase found in one piece of the contact list: events, contacts to
/// destroy, bodies to wake and the counters, merged in order afterwards. Kept in the step's
/// scratch so the steady state allocates nothing.
#[derive(Clone, Debug, Default)]
pub(crate) struct NarrowChunk {
    narrow: Scratch,
    /// The manifold of the pair being updated (one a piece, so none is moved by value).
    manifold: Manifold,
    events: ContactEvents,
    to_destroy: Vec<u32>,
    to_wake: Vec<u32>,
    tests: usize,
    reused: usize,
    /// Touching manifolds and their points.
    manifolds: usize,
    points: usize,
}

impl NarrowChunk {
    fn clear(&mut self) {
        self.events.clear();
        self.to_destroy.clear();
        self.to_wake.clear();
        self.tests = 0;
        self.reused = 0;
        self.manifolds = 0;
        self.points = 0;
    }
}

/// What every piece of the narrow phase reads.
struct NarrowEnv<'a> {
    bodies: &'a Arena<Body>,
    colliders: &'a Arena<Collider>,
    broad_phase: &'a (dyn BroadPhase + Send + Sync),
    /// The contact slots: each is updated by the one piece of the active list that names it.
    slots: Shared<Contact>,
    dt: f32,
    reuse_manifolds: bool,
}

impl NarrowEnv<'_> {
    /// Refreshes the manifold of every contact of `infos` with an awake body, recording
    /// begin/persist/end events, contacts whose colliders stopped overlapping and sleeping
    /// bodies touched by awake ones in `out`.
    ///
    /// # Safety
    /// No other thread may use the contacts that `infos` names while this runs, and
    /// `infos` names each at most once.
    unsafe fn update_chunk(&self, infos: &mut [ActiveInfo], out: &mut NarrowChunk) {
        let Self {
            bodies,
            colliders,
            broad_phase,
            dt,
            reuse_manifolds,
            ..
        } = *self;
        for k in 0..infos.len() {
            prefetch_ahead(
                infos,
                k,
                self.slots.as_ptr(),
                self.slots.len(),
                bodies,
                Some(colliders),
            );
            let id = infos[k].id;
            // SAFETY: this piece is the only user of the contact (above).
            let contact = unsafe { self.slots.at_mut(id as usize) };
            let (Some(col_a), Some(col_b)) = (
                colliders.at(contact.collider_a),
                colliders.at(contact.collider_b),
            ) else {
                out.to_destroy.push(id);
                continue;
            };
            let (Some(body_a), Some(body_b)) = (bodies.at(col_a.body), bodies.at(col_b.body))
            else {
                out.to_destroy.push(id);
                continue;
            };
            let active_a = body_a.awake && body_a.body_type != BodyType::Static;
            let active_b = body_b.awake && body_b.body_type != BodyType::Static;
            if !active_a && !active_b {
                // Both asleep: the manifold stays as it was, and still counts.
                if contact.touching {
                    out.manifolds += 1;
                    out.points += contact.count;
                }
                continue;
            }
            debug_assert_eq!(col_a.fat_aabb, broad_phase.fat_aabb(col_a.proxy));
            debug_assert_eq!(col_b.fat_aabb, broad_phase.fat_aabb(col_b.proxy));
            if !col_a.fat_aabb.overlaps(&col_b.fat_aabb) {
                out.to_destroy.push(id);
                continue;
            }
            // How fast any point of the pair can close: relative linear speed plus each
            // body's spin times the reach of its collider from the centre of mass.
            let closing = (body_a.linear_velocity - body_b.linear_velocity).length()
                + spin_reach(body_a, col_a)
                + spin_reach(body_b, col_b);
            let margin = (SPECULATIVE_DISTANCE + closing * dt).min(MAX_SPECULATIVE_DISTANCE);
            let (pose_a, pose_b) = (&col_a.world_pose, &col_b.world_pose);
            if contact.sensor {
                // Overlap only: no speculative margin, no points kept, never touching.
                out.tests += 1;
                let manifold = collide(
                    &col_a.shape,
                    pose_a,
                    &col_b.shape,
                    pose_b,
                    0.0,
                    &mut out.narrow,
                );
                let was = contact.overlapping;
                contact.overlapping = manifold.points().iter().any(|p| p.depth > 0.0);
                match (was, contact.overlapping) {
                    (false, true) => out.events.sensor_begin.push(make_pair(contact)),
                    (true, false) => out.events.sensor_end.push(make_pair(contact)),
                    _ => {}
                }
                continue;
            }
            // How far the pair moved since its last test, and whether it held still (None:
            // no cache kept).
            let b_in_a = contact.cache.as_ref().map(|_| pose_a.inv_mul(pose_b));
            let motion = contact
                .cache
                .as_ref()
                .zip(b_in_a.as_ref())
                .map(|(cache, b_in_a)| cache.motion_bound(b_in_a));
            let still = contact
                .cache
                .as_ref()
                .zip(motion)
                .map(|(cache, motion)| reuse_manifolds && cache.holds(motion, margin));
            // The common case of a resting pair: the kept manifold again, moved into the
            // contact's points in place; its touching state and events are as they were.
            if still == Some(true) && contact.refresh_from_cache(pose_a, pose_b, margin) {
                out.reused += 1;
                // It has points, so it touched at the last step too.
                debug_assert!(contact.touching);
                infos[k].touching = true;
                out.manifolds += 1;
                out.points += contact.count;
                out.events.persist.push(make_pair(contact));
                wake_sleeper([body_a, body_b], [active_a, active_b], [col_a, col_b], out);
                continue;
            }
            let manifold = &mut out.manifold;
            match &contact.cache {
                Some(cache) if still == Some(true) && cache.is_complete() => {
                    out.reused += 1;
                    cache.manifold_into(pose_a, pose_b, margin, manifold);
                }
                cache => {
                    // The gap left if the pair is certainly still out of reach (see
                    // `ManifoldCache::remaining_gap`).
                    let apart = cache
                        .as_ref()
                        .zip(motion)
                        .and_then(|(cache, motion)| cache.remaining_gap(motion, margin))
                        .filter(|_| reuse_manifolds);
                    match apart {
                        // Still out of reach: a test would find no points.
                        Some(gap) => {
                            out.reused += 1;
                            manifold.empty();
                            manifold.gap = gap;
                        }
                        None => {
                            out.tests += 1;
                            let (shape_a, shape_b) = (&col_a.shape, &col_b.shape);
                            collide_into(
                                shape_a,
                                pose_a,
                                shape_b,
                                pose_b,
                                b_in_a.as_ref(),
                                margin,
                                &mut out.narrow,
                                manifold,
                            );
                        }
                    }
                    // A pair that moved well past the reuse limit will most likely move
                    // again: only its pose is kept (`ManifoldCache::pose_only`); one that
                    // moved a little past it is most likely coming to rest, and keeps its
                    // manifold (`ManifoldCache::settling`). A skipped test leaves the cache
                    // as the test would have: kept at this pose, with the gap that is left.
                    // A pair cheaper to test than to reuse never has a cache (both
                    // constructors give it none): its `None` stays as it is.
                    let settling = reuse_manifolds
                        && contact
                            .cache
                            .as_ref()
                            .zip(motion)
                            .is_some_and(|(cache, motion)| cache.settling(motion));
                    if cheap_to_test(col_a.shape.kind(), col_b.shape.kind()) {
                        debug_assert!(contact.cache.is_none());
                    } else if still == Some(false) && !settling {
                        contact.cache = ManifoldCache::pose_only(
                            col_a,
                            col_b,
                            b_in_a.as_ref(),
                            margin,
                            manifold.gap,
                        );
                    } else {
                        contact.cache =
                            ManifoldCache::new(col_a, col_b, b_in_a.as_ref(), margin, manifold);
                    }
                }
            }
            let was_touching = contact.touching;
            contact.update_points(manifold.normal, manifold.points());
            contact.touching = manifold.count > 0;
            infos[k].touching = contact.touching;
            if contact.touching {
                out.manifolds += 1;
                out.points += contact.count;
            }
            if !contact.touching {
                // Nothing carried over to a later touch: its points restart at zero too.
                contact.twist_impulse = 0.0;
                contact.rolling_impulse = Vec3::ZERO;
            }
            if contact.touching || was_touching {
                let pair = make_pair(contact);
                match (was_touching, contact.touching) {
                    (false, true) => out.events.begin.push(ContactBegin {
                        pair,
                        approach_speed: approach_speed(body_a, body_b, manifold),
                    }),
                    (true, true) => out.events.persist.push(pair),
                    _ => out.events.end.push(pair),
                }
            }
            if contact.touching {
                wake_sleeper([body_a, body_b], [active_a, active_b], [col_a, col_b], out);
            }
        }
    }
}

/// A touching contact whose one body is awake and the other a sleeping dynamic body: the
/// sleeper's island is woken (its index goes to `out.to_wake`).
#[inline]
fn wake_sleeper(
    [body_a, body_b]: [&Body; 2],
    [active_a, active_b]: [bool; 2],
    [col_a, col_b]: [&Collider; 2],
    out: &mut NarrowChunk,
) {
    if active_a == active_b {
        return;
    }
    let (sleeper, sleeper_index) = if active_a {
        (body_b, col_b.body)
    } else {
        (body_a, col_a.body)
    };
    if sleeper.is_dynamic() && !sleeper.awake {
        out.to_wake.push(sleeper_index);
    }
}

/// How fast the bodies close along the manifold's normal, m/s (positive: closing): the
/// largest over its points of −(v_B + ω_B×r_B − v_A − ω_A×r_A)·n.
fn approach_speed(a: &Body, b: &Body, manifold: &Manifold) -> f32 {
    let velocity = |body: &Body, at: Vec3| {
        body.linear_velocity + body.angular_velocity.cross(at - body.center)
    };
    manifold
        .points()
        .iter()
        .map(|p| {
            let at = 0.5 * (p.point_a + p.point_b);
            -(velocity(b, at) - velocity(a, at)).dot(manifold.normal)
        })
        .fold(f32::NEG_INFINITY, f32::max)
}

/// |ω| times the farthest a collider's AABB reaches from the body's centre of mass: the
/// fastest any of its points moves because of the spin.
fn spin_reach(body: &Body, collider: &Collider) -> f32 {
    let w = body.angular_velocity.length();
    if w == 0.0 {
        return 0.0;
    }
    let aabb = collider.aabb;
    w * ((aabb.center() - body.center).abs() + aabb.half_extents()).length()
}

/// The handles of a contact's colliders and bodies, as they were when it was made (an end
/// event for a removed collider or body names the handle it had, now stale).
fn make_pair(c: &Contact) -> ContactPair {
    let ContactHandles { colliders, bodies } = c.handles;
    ContactPair {
        collider_a: colliders[0],
        collider_b: colliders[1],
        body_a: bodies[0],
        body_b: bodies[1],
    }
}
