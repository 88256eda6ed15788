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
    /// Left edge of the 3D view in pixels (the panel covers the rest of the left).
    pub viewport_left: f32,
}

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
            viewport_left: 0.0,
        }
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
        let left = self.viewport_left.clamp(0.0, screen_width() - 1.0);
        (
            left,
            (screen_width() - left).max(1.0),
            screen_height().max(1.0),
        )
    }

    /// The macroquad camera, drawing to the part of the window right of the panel.
    pub fn camera3d(&self) -> Camera3D {
        let (left, width, height) = self.view_rect();
        Camera3D {
            position: self.eye(),
            target: self.target,
            up: Vec3::Y,
            fovy: self.fov,
            aspect: Some(width / height),
            viewport: Some((left as i32, 0, width as i32, height as i32)),
            ..Default::default()
        }
    }

    /// Turns by a mouse drag of `delta` pixels.
    pub fn orbit(&mut self, delta: Vec2) {
        self.yaw -= delta.x * 0.006;
        self.pitch = (self.pitch + delta.y * 0.006).clamp(-1.45, 1.45);
    }

    /// Slides the target in the view plane by a drag of `delta` pixels.
    pub fn pan(&mut self, delta: Vec2) {
        let forward = (self.target - self.eye()).normalize_or_zero();
        let right = forward.cross(Vec3::Y).normalize_or_zero();
        let up = right.cross(forward);
        let scale = self.distance * (self.fov * 0.5).tan() * 2.0 / screen_height().max(1.0);
        self.target += (-right * delta.x + up * delta.y) * scale;
    }

    /// Zooms by `steps` wheel notches (positive = closer).
    pub fn zoom(&mut self, steps: f32) {
        self.distance = (self.distance * 0.9f32.powf(steps)).clamp(0.5, 500.0);
    }

    /// Looks at `bounds` from the current direction, close enough to see all of it.
    pub fn frame(&mut self, bounds: &Aabb) {
        self.target = bounds.center();
        let radius = bounds.half_extents().length().max(0.5);
        self.distance = (radius / (self.fov * 0.5).sin() * 1.1).clamp(1.0, 500.0);
    }

    /// The world ray through a screen point (pixels): (origin, unit direction).
    pub fn ray(&self, screen: Vec2) -> (Vec3, Vec3) {
        let (left, width, height) = self.view_rect();
        let ndc = Vec2::new(
            2.0 * (screen.x - left) / width - 1.0,
            1.0 - 2.0 * screen.y / height,
        );
        let inverse = self.camera3d().matrix().inverse();
        let near = inverse.project_point3(Vec3::new(ndc.x, ndc.y, -1.0));
        let far = inverse.project_point3(Vec3::new(ndc.x, ndc.y, 1.0));
        (near, (far - near).normalize_or(Vec3::NEG_Z))
    }

    /// The unit vector the camera looks along.
    pub fn forward(&self) -> Vec3 {
        (self.target - self.eye()).normalize_or(Vec3::NEG_Z)
    }
}
