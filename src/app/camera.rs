//! The orbit camera: drag to orbit, scroll to zoom, middle- or shift-drag to pan, F to frame.

use macroquad::prelude::*;

use crate::physics::aabb::Aabb;
use crate::scene::schema::CameraDesc;

/// A camera orbiting a target point.
#[derive(Clone, Debug)]
pub struct OrbitCamera {
    /// The point looked at, m.
    pub target: Vec3,
    /// Angle about the vertical axis, rad.
    pub yaw: f32,
    /// Angle above the horizon, rad.
    pub pitch: f32,
    /// Distance from the target, m.
    pub distance: f32,
    /// Vertical field of view, rad.
    pub fov: f32,
    /// The 3D view's rectangle between the panels: left edge, width, height, in pixels.
    pub viewport: [f32; 3],
    /// Pixels between the 3D view's bottom edge and the window's (the timeline's height).
    pub bottom: f32,
    /// Height of the floor the eye must stay above (the top of the scene's ground), m.
    pub floor: Option<f32>,
    /// A planar world's view: orthographic, from the front (looking along −z), no orbiting
    /// (pan and zoom still work).
    pub orthographic: bool,
}

/// The camera presets (keys 1, 3 and 7, as in Blender).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewPreset {
    /// From +z, looking along −z.
    Front,
    /// From +x, looking along −x.
    Side,
    /// From above.
    Top,
}

/// The eye stays at least this far above the floor, m.
const EYE_ABOVE_FLOOR: f32 = 0.3;
/// The steepest pitch either way, rad (about 83°).
const MAX_PITCH: f32 = 1.45;

impl OrbitCamera {
    /// The camera a scene file asks for.
    pub fn from_desc(desc: &CameraDesc) -> Self {
        let eye = Vec3::new(desc.eye.0, desc.eye.1, desc.eye.2);
        let target = Vec3::new(desc.target.0, desc.target.1, desc.target.2);
        let offset = eye - target;
        let distance = offset.length().max(0.5);
        Self {
            target,
            yaw: offset.x.atan2(offset.z),
            pitch: (offset.y / distance).clamp(-1.0, 1.0).asin(),
            distance,
            fov: desc.fov_deg.to_radians(),
            viewport: [0.0, 1280.0, 800.0],
            bottom: 0.0,
            floor: None,
            orthographic: false,
        }
    }

    /// Turns the planar world's front view on (facing −z, orthographic) or off.
    pub fn set_orthographic(&mut self, on: bool) {
        self.orthographic = on;
        if on {
            self.yaw = 0.0;
            self.pitch = 0.0;
        }
    }

    /// The lowest pitch that keeps the eye above the floor at the current distance.
    fn min_pitch(&self) -> f32 {
        match self.floor {
            Some(floor) => {
                let sin =
                    ((floor + EYE_ABOVE_FLOOR - self.target.y) / self.distance).clamp(-1.0, 1.0);
                sin.asin().clamp(-MAX_PITCH, MAX_PITCH)
            }
            None => -MAX_PITCH,
        }
    }

    /// Puts the pitch back within its limits (above the floor, not past vertical).
    pub fn keep_above_floor(&mut self) {
        if self.orthographic {
            // The front view stays level: a parallel projection cannot look up at the floor.
            return;
        }
        self.pitch = self.pitch.clamp(self.min_pitch(), MAX_PITCH);
    }

    /// Where the eye is.
    pub fn eye(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        self.target + self.distance * Vec3::new(cp * sy, sp, cp * cy)
    }

    /// The camera as a scene description (for saving).
    pub fn to_desc(&self) -> CameraDesc {
        let eye = self.eye();
        CameraDesc {
            eye: (eye.x, eye.y, eye.z),
            target: (self.target.x, self.target.y, self.target.z),
            fov_deg: self.fov.to_degrees(),
        }
    }

    /// The 3D view's rectangle: (left, width, height) in pixels.
    fn view_rect(&self) -> (f32, f32, f32) {
        let [left, width, height] = self.viewport;
        (left, width.max(1.0), height.max(1.0))
    }

    /// Width over height of the 3D view.
    pub fn aspect(&self) -> f32 {
        let (_, width, height) = self.view_rect();
        width / height
    }

    /// The macroquad camera, drawing to the part of the window right of the panel.
    pub fn camera3d(&self) -> Camera3D {
        let (left, width, height) = self.view_rect();
        Camera3D {
            position: self.eye(),
            target: self.target,
            up: Vec3::Y,
            aspect: Some(width / height),
            viewport: Some((left as i32, self.bottom as i32, width as i32, height as i32)),
            // The near plane scales with the distance: depth precision goes as near / z², and
            // a fixed 1 cm near plane leaves a 16-bit depth buffer unable to tell a shadow on
            // the floor from the face of the box standing on it 40 m away.
            z_near: (self.distance * 0.02).clamp(0.01, 1.0),
            z_far: 10_000.0,
            ..self.projection()
        }
    }

    /// The matrix from world to normalised device coordinates that [`Self::camera3d`]
    /// draws with (macroquad's `Camera3D::matrix`, which also asks the window for its size
    /// even when the aspect is given, so it cannot run without one).
    pub fn view_projection(&self) -> Mat4 {
        let c = self.camera3d();
        let projection = if self.orthographic {
            let top = c.fovy / 2.0;
            let right = top * self.aspect();
            Mat4::orthographic_rh_gl(-right, right, -top, top, c.z_near, c.z_far)
        } else {
            Mat4::perspective_rh_gl(c.fovy, self.aspect(), c.z_near, c.z_far)
        };
        projection * Mat4::look_at_rh(c.position, c.target, c.up)
    }

    /// Perspective with the field of view; orthographic showing the height the perspective
    /// view shows at the target, so zooming (the distance) works the same in both.
    fn projection(&self) -> Camera3D {
        if self.orthographic {
            Camera3D {
                projection: Projection::Orthographics,
                fovy: 2.0 * self.distance * (0.5 * self.fov).tan(),
                ..Default::default()
            }
        } else {
            Camera3D {
                fovy: self.fov,
                ..Default::default()
            }
        }
    }

    /// Turns by a mouse drag of `delta` pixels.
    pub fn orbit(&mut self, delta: Vec2) {
        if self.orthographic {
            return;
        }
        self.yaw -= delta.x * 0.006;
        self.pitch += delta.y * 0.006;
        self.keep_above_floor();
    }

    /// Slides the target in the view plane by a drag of `delta` pixels.
    pub fn pan(&mut self, delta: Vec2) {
        let forward = (self.target - self.eye()).normalize_or_zero();
        let right = forward.cross(Vec3::Y).normalize_or_zero();
        let up = right.cross(forward);
        let scale = self.distance * (self.fov * 0.5).tan() * 2.0 / self.view_rect().2;
        self.target += (-right * delta.x + up * delta.y) * scale;
        self.keep_above_floor();
    }

    /// Zooms by `steps` wheel notches (positive = closer) toward `point`, a point on the
    /// ray under the cursor: eye and target scale about it by the same factor (0.9 a notch,
    /// the distance kept within 0.5–500 m), so the direction from the eye to it, and with
    /// it its place on the screen, stays the same.
    pub fn zoom_at(&mut self, steps: f32, point: Vec3) {
        let before = self.distance;
        let after = (before * 0.9f32.powf(steps)).clamp(0.5, 500.0);
        self.target = point + (self.target - point) * (after / before);
        self.distance = after;
        self.keep_above_floor();
    }

    /// Where the ray (`origin`, unit `dir`) crosses the plane through the target facing the
    /// camera: what the cursor points at when it points at no body. The target itself when
    /// the ray runs along the plane or away from it.
    pub fn on_target_plane(&self, origin: Vec3, dir: Vec3) -> Vec3 {
        let forward = self.forward();
        let along = dir.dot(forward);
        let t = (self.target - origin).dot(forward) / along;
        if along.abs() < 1e-4 || !t.is_finite() || t <= 0.0 {
            self.target
        } else {
            origin + dir * t
        }
    }

    /// Looks from the front (along −z), the side (along −x) or the top (down, as steep as
    /// the pitch may be), keeping the target and the distance. A planar world's view stays
    /// the front one.
    pub fn preset(&mut self, preset: ViewPreset) {
        if self.orthographic {
            return;
        }
        (self.yaw, self.pitch) = match preset {
            ViewPreset::Front => (0.0, 0.0),
            ViewPreset::Side => (std::f32::consts::FRAC_PI_2, 0.0),
            ViewPreset::Top => (0.0, MAX_PITCH),
        };
        self.keep_above_floor();
    }

    /// Looks at the centre of `bounds` from the current direction (raised above the floor if
    /// it was below), just far enough that all eight corners are in view.
    pub fn frame(&mut self, bounds: &Aabb) {
        self.target = bounds.center();
        self.distance = 1.0;
        self.keep_above_floor();
        // In the camera's axes a corner at (x, y) across and z towards the eye is in view at
        // distance d when |x| ≤ (d − z)·tan(half-width) and |y| ≤ (d − z)·tan(half-height).
        let back = (self.eye() - self.target).normalize_or(Vec3::Z);
        let right = Vec3::Y.cross(back).normalize_or(Vec3::X);
        let up = back.cross(right);
        let tan_v = (self.fov * 0.5).tan();
        let tan_h = tan_v * self.aspect();
        let (min, max) = (bounds.min, bounds.max);
        let needed = (0..8)
            .map(|i| {
                let corner = Vec3::new(
                    if i & 1 == 0 { min.x } else { max.x },
                    if i & 2 == 0 { min.y } else { max.y },
                    if i & 4 == 0 { min.z } else { max.z },
                ) - self.target;
                let (x, y, z) = (corner.dot(right), corner.dot(up), corner.dot(back));
                z + (x.abs() / tan_h).max(y.abs() / tan_v)
            })
            .fold(0.0f32, f32::max);
        self.distance = (needed * 1.08).clamp(1.0, 500.0);
        self.keep_above_floor();
    }

    /// The world ray through a screen point (pixels): (origin, unit direction).
    pub fn ray(&self, screen: Vec2) -> (Vec3, Vec3) {
        let (left, width, height) = self.view_rect();
        let ndc = Vec2::new(
            2.0 * (screen.x - left) / width - 1.0,
            1.0 - 2.0 * screen.y / height,
        );
        let inverse = self.view_projection().inverse();
        let near = inverse.project_point3(Vec3::new(ndc.x, ndc.y, -1.0));
        let far = inverse.project_point3(Vec3::new(ndc.x, ndc.y, 1.0));
        (near, (far - near).normalize_or(Vec3::NEG_Z))
    }

    /// The unit vector the camera looks along.
    pub fn forward(&self) -> Vec3 {
        (self.target - self.eye()).normalize_or(Vec3::NEG_Z)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn camera(viewport: [f32; 3]) -> OrbitCamera {
        let mut c = OrbitCamera::from_desc(&CameraDesc {
            eye: (8.0, 5.0, 12.0),
            target: (0.0, 1.0, 0.0),
            fov_deg: 45.0,
        });
        c.viewport = viewport;
        c
    }

    /// The largest |x| and |y| of the box's corners in normalised device coordinates.
    fn ndc_extent(c: &OrbitCamera, b: &Aabb) -> (f32, f32) {
        // The projection macroquad's Camera3D builds (its own needs a window).
        let m = Mat4::perspective_rh_gl(c.fov, c.aspect(), 0.01, 10_000.0)
            * Mat4::look_at_rh(c.eye(), c.target, Vec3::Y);
        let (mut x, mut y) = (0.0f32, 0.0f32);
        for i in 0..8 {
            let corner = Vec3::new(
                if i & 1 == 0 { b.min.x } else { b.max.x },
                if i & 2 == 0 { b.min.y } else { b.max.y },
                if i & 4 == 0 { b.min.z } else { b.max.z },
            );
            let p = m.project_point3(corner);
            x = x.max(p.x.abs());
            y = y.max(p.y.abs());
        }
        (x, y)
    }

    #[test]
    fn framing_fits_the_bounds_in_wide_and_narrow_views() {
        // A 12 × 2 × 2 m row: in a tall narrow view (beside two panels) and in a wide one
        // every corner is on screen and the view is not wasted: a corner reaches past 80 % of
        // the limiting edge (the margin is 8 %).
        let b = Aabb::new(Vec3::new(-6.0, 0.0, -1.0), Vec3::new(6.0, 2.0, 1.0));
        for viewport in [[300.0, 500.0, 860.0], [0.0, 1400.0, 600.0]] {
            let mut c = camera(viewport);
            c.frame(&b);
            let (x, y) = ndc_extent(&c, &b);
            assert!(x <= 1.0 && y <= 1.0, "{viewport:?}: corners at ({x}, {y})");
            assert!(x.max(y) > 0.8, "{viewport:?}: corners at ({x}, {y})");
        }
    }

    #[test]
    fn zooming_keeps_the_point_under_the_cursor_where_it_is_on_the_screen() {
        let mut c = camera([300.0, 800.0, 600.0]);
        let cursor = Vec2::new(650.0, 420.0);
        let (origin, dir) = c.ray(cursor);
        let point = c.on_target_plane(origin, dir);
        let screen = |c: &OrbitCamera| {
            let ndc = c.view_projection().project_point3(point);
            let [left, width, height] = c.viewport;
            Vec2::new(
                left + 0.5 * (ndc.x + 1.0) * width,
                0.5 * (1.0 - ndc.y) * height,
            )
        };
        assert!((screen(&c) - cursor).length() < 0.1, "{}", screen(&c));
        let distance = c.distance;
        for steps in [3.0, -5.0, 1.0] {
            c.zoom_at(steps, point);
            assert!((screen(&c) - cursor).length() < 0.1, "{}", screen(&c));
        }
        // Net one notch out: 0.9⁻¹ of the distance.
        assert!((c.distance - distance / 0.9).abs() < 1e-3 * distance);
    }

    #[test]
    fn the_eye_stays_above_the_floor() {
        let mut c = camera([0.0, 1000.0, 800.0]);
        c.floor = Some(0.0);
        // Dragging far down would put the eye 83° under the target.
        c.orbit(Vec2::new(0.0, -2000.0));
        assert!(c.eye().y >= EYE_ABOVE_FLOOR - 1e-4, "eye at {}", c.eye());
        // Zooming out and panning keep it there too, and a camera already below comes back up
        // when framed.
        let target = c.target;
        c.zoom_at(-10.0, target);
        assert!(c.eye().y >= EYE_ABOVE_FLOOR - 1e-4);
        c.floor = None;
        c.orbit(Vec2::new(0.0, -2000.0));
        assert!(
            c.eye().y < 0.0,
            "without a floor the camera may look from below"
        );
        c.floor = Some(0.0);
        c.frame(&Aabb::new(
            Vec3::new(-1.0, 0.0, -1.0),
            Vec3::new(1.0, 2.0, 1.0),
        ));
        assert!(c.eye().y >= EYE_ABOVE_FLOOR - 1e-4, "eye at {}", c.eye());
        // Without a floor the pitch still stops short of vertical.
        let mut free = camera([0.0, 1000.0, 800.0]);
        free.orbit(Vec2::new(0.0, 1.0e5));
        assert!((free.pitch - MAX_PITCH).abs() < 1e-6);
    }
}

#[cfg(test)]
mod scene_framing {
    use super::*;
    use crate::physics::Shape;

    /// The 3D view between the panels in the default 1400 × 860 window.
    const VIEW: [f32; 3] = [320.0, 790.0, 860.0];

    /// The bounds of everything in `world` worth seeing (not planes, not ground slabs).
    fn visible_bounds(world: &crate::physics::World) -> Option<Aabb> {
        world
            .colliders()
            .filter(|(_, c)| !matches!(c.shape(), Shape::Plane { .. }))
            .map(|(_, c)| c.aabb())
            .filter(|b| {
                let size = b.max - b.min;
                !(size.x > 30.0 && size.z > 30.0)
            })
            .reduce(|a, b| a.union(&b))
    }

    /// The largest |x| and |y| in normalised device coordinates over the corners of `b`.
    fn ndc(c: &OrbitCamera, b: &Aabb) -> f32 {
        let m = Mat4::perspective_rh_gl(c.fov, c.aspect(), 0.01, 10_000.0)
            * Mat4::look_at_rh(c.eye(), c.target, Vec3::Y);
        (0..8)
            .map(|i| {
                let corner = Vec3::new(
                    if i & 1 == 0 { b.min.x } else { b.max.x },
                    if i & 2 == 0 { b.min.y } else { b.max.y },
                    if i & 4 == 0 { b.min.z } else { b.max.z },
                );
                let p = m.project_point3(corner);
                p.x.abs().max(p.y.abs())
            })
            .fold(0.0, f32::max)
    }

    #[test]
    fn every_shipped_scene_is_in_view_beside_the_panels() {
        // Each scene's own camera sees every body (but the ground) in the view between the
        // two panels, at the start and after four seconds (the ramp's boxes have slid, the
        // dominoes have fallen, the launcher has fired).
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
        let mut failures = Vec::new();
        let mut paths: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "ron"))
            .collect();
        paths.sort();
        for path in paths {
            let text = std::fs::read_to_string(&path).unwrap();
            let mut scene = crate::scene::load_str(&text, &path.display().to_string()).unwrap();
            let mut camera = OrbitCamera::from_desc(&scene.camera);
            camera.viewport = VIEW;
            for step in 0..=240 {
                if step % 240 == 0 {
                    if let Some(b) = visible_bounds(&scene.world) {
                        let extent = ndc(&camera, &b);
                        if extent > 1.0 {
                            failures.push(format!(
                                "{} at step {step}: reaches {extent:.2} of the view",
                                path.display()
                            ));
                        }
                    }
                }
                if step < 240 {
                    scene.world.step(scene.timestep);
                }
            }
        }
        assert!(failures.is_empty(), "{failures:#?}");
    }
}
