#version 100
// A soft contact shadow: a unit square (x, z in −1..1) laid on the floor under a body,
// scaled to its footprint; the fragment shader fades it out towards the edge.
attribute vec3 position;
attribute vec3 normal;
attribute vec4 inst_rotation;
attribute vec3 inst_position;
attribute vec3 inst_scale;
attribute vec4 inst_color;

varying lowp vec4 color;
varying mediump vec2 local;

uniform mat4 Projection;

void main() {
    vec3 world = inst_position + position * inst_scale;
    gl_Position = Projection * vec4(world, 1.0);
    color = inst_color / 255.0;
    local = position.xz;
}
