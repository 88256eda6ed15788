#version 100
// One shape's unit mesh drawn once per instance: each instance places it (rotation as a
// quaternion, position, per-axis scale) and colours it.
attribute vec3 position;
attribute vec3 normal;
attribute vec4 inst_rotation;
attribute vec3 inst_position;
attribute vec3 inst_scale;
attribute vec4 inst_color;

varying lowp vec4 color;
varying mediump vec3 world_normal;

uniform mat4 Projection;

// v rotated by the unit quaternion q.
vec3 rotate(vec4 q, vec3 v) {
    vec3 t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}

void main() {
    vec3 world = inst_position + rotate(inst_rotation, position * inst_scale);
    gl_Position = Projection * vec4(world, 1.0);
    color = inst_color / 255.0;
    // Normals scale by the inverse (exact for the axis-aligned scales used here).
    world_normal = rotate(inst_rotation, normal / inst_scale);
}
