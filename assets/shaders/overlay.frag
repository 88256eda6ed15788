#version 100
precision mediump float;
varying lowp vec4 color;

uniform vec4 Fade;

void main() {
    gl_FragColor = vec4(color.rgb, color.a * Fade.x);
}
