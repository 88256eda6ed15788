//! Edits of the world from the panel and the mouse, and undoing them: each edit made while
//! paused keeps the state before it (one per gesture, at most [`MAX_UNDO`]).

use super::*;

/// Most edits that can be undone (each keeps a copy of the world).
pub const MAX_UNDO: usize = 100;

/// A state to go back to: the world, the names and the selection.
pub(super) struct Snapshot {
    pub(super) world: World,
    pub(super) meta: BTreeMap<BodyHandle, BodyMeta>,
    pub(super) selected: Option<BodyHandle>,
}

impl Sandbox {
    /// Notes that the world or the names changed outside a step (the timeline hears of it at
    /// [`Sandbox::commit_edits`]).
    pub fn mark_edited(&mut self) {
        self.edited = true;
        self.edits += 1;
    }

    /// Called by every edit before it changes anything: while paused, the first edit of a
    /// gesture (edits in consecutive frames, such as a slider dragged) keeps the state
    /// before it for [`Sandbox::undo`], and a new edit forgets what was undone.
    pub fn before_edit(&mut self) {
        if self.playing || self.edit_gesture || self.edited || self.undo_pending {
            return;
        }
        self.undo.push(self.snapshot());
        self.undo_pending = true;
    }

    /// The world, names and selection as they are now.
    pub(super) fn snapshot(&self) -> Snapshot {
        Snapshot {
            world: self.world.clone(),
            meta: self.meta.clone(),
            selected: self.selected,
        }
    }

    /// Puts back a snapshot as an edit (the timeline branches there, as for any edit).
    pub(super) fn restore(&mut self, s: Snapshot) {
        self.world = s.world;
        self.meta = s.meta;
        self.selected = s.selected.filter(|&h| self.world.body(h).is_some());
        self.grab = None;
        self.joining = None;
        self.edited = true;
        self.edits += 1;
        self.undo_pending = false;
    }

    /// Takes back the last edit made while paused (Ctrl+Z); false when there is none.
    pub fn undo(&mut self) -> bool {
        let Some(before) = self.undo.pop() else {
            return false;
        };
        self.undone.push(self.snapshot());
        self.restore(before);
        true
    }

    /// Makes the last undone edit again (Ctrl+Shift+Z); false when there is none.
    pub fn redo(&mut self) -> bool {
        let Some(after) = self.undone.pop() else {
            return false;
        };
        self.undo.push(self.snapshot());
        self.restore(after);
        true
    }

    /// How many edits can be undone and redone.
    pub fn undo_depth(&self) -> (usize, usize) {
        (self.undo.len(), self.undone.len())
    }

    /// Tells the timeline about this frame's edits: the edited state starts a new branch.
    /// Called once a frame (so dragging a slider makes one keyframe per frame, not per event)
    /// and before any step or scrub.
    pub fn commit_edits(&mut self) {
        let edited = std::mem::take(&mut self.edited);
        if edited {
            self.timeline.branch(&self.world, &self.meta);
        }
        // The state kept by `before_edit` stays for undo only if the edit was made (a
        // refused one changed nothing); a new edit forgets what was undone.
        if std::mem::take(&mut self.undo_pending) {
            if edited {
                self.undone.clear();
                if self.undo.len() > MAX_UNDO {
                    self.undo.remove(0);
                }
            } else {
                self.undo.pop();
            }
        }
        self.edit_gesture = edited;
    }

    /// Changes the world's settings (a new gravity wakes every body so it is felt); refused
    /// values leave the world as it was and show why.
    pub fn set_settings(&mut self, settings: WorldSettings) {
        self.before_edit();
        let gravity_changed = settings.gravity != self.world.settings().gravity;
        match self.world.set_settings(settings) {
            Ok(()) => {
                if gravity_changed {
                    self.world.wake_all();
                }
                self.mark_edited();
            }
            Err(e) => self.error = Some(format!("settings: {e}")),
        }
    }

    /// Shows why a body edit was refused, or notes the edit.
    pub(super) fn body_edit(&mut self, handle: BodyHandle, result: Result<(), BodyError>) {
        match result {
            Ok(()) => self.mark_edited(),
            Err(e) => self.error = Some(format!("{}: {e}", self.body_name(handle))),
        }
    }

    /// Moves a body.
    pub fn set_position(&mut self, handle: BodyHandle, position: Vec3) {
        self.before_edit();
        let result = self.world.set_position(handle, position);
        self.body_edit(handle, result);
    }

    /// Turns a body.
    pub fn set_rotation(&mut self, handle: BodyHandle, rotation: Quat) {
        self.before_edit();
        let result = self.world.set_rotation(handle, rotation);
        self.body_edit(handle, result);
    }

    /// Sets a body's linear (m/s) and angular (rad/s) velocity.
    pub fn set_velocity(&mut self, handle: BodyHandle, linear: Vec3, angular: Vec3) {
        self.before_edit();
        let result = self
            .world
            .set_linear_velocity(handle, linear)
            .and_then(|()| self.world.set_angular_velocity(handle, angular));
        self.body_edit(handle, result);
    }

    /// Makes a body static, kinematic or dynamic.
    pub fn set_body_type(&mut self, handle: BodyHandle, body_type: BodyType) {
        self.before_edit();
        let result = self.world.set_body_type(handle, body_type);
        self.body_edit(handle, result);
    }

    /// Gives every collider of a body the friction, restitution and density of `material`.
    pub fn set_material(&mut self, handle: BodyHandle, material: &ColliderDef) {
        self.before_edit();
        let colliders: Vec<_> = self.world.body_colliders(handle).collect();
        for c in colliders {
            if let Err(e) = self.world.set_collider_material(c, material) {
                self.error = Some(format!("{}: {e}", self.body_name(handle)));
            }
        }
        self.mark_edited();
    }

    /// Gives every collider of a body the collision filter `filter`.
    pub fn set_filter(&mut self, handle: BodyHandle, filter: CollisionFilter) {
        self.before_edit();
        let colliders: Vec<_> = self.world.body_colliders(handle).collect();
        for c in colliders {
            if let Err(e) = self.world.set_collider_filter(c, filter) {
                self.error = Some(format!("{}: {e}", self.body_name(handle)));
            }
        }
        self.mark_edited();
    }

    /// Sets the colour of a body.
    pub fn set_color(&mut self, handle: BodyHandle, color: SceneColor) {
        self.before_edit();
        self.meta.entry(handle).or_default().color = Some(color);
        self.mark_edited();
    }
}
