#version 100
precision mediump float;
varying lowp vec4 color;
varying mediump vec2 local;

uniform vec4 LightDir;

void main() {
    // Full strength over the inner half (where the body's footprint is), fading smoothly to
    // nothing at the ellipse's edge.
    float r = length(local);
    if (r >= 1.0) {
        // Outside the ellipse: leave the floor (and its depth) as it is.
        discard;
    }
    float fade = 1.0 - smoothstep(0.5, 1.0, r);
    gl_FragColor = vec4(color.rgb, color.a * fade);
}
