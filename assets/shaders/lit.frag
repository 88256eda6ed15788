#version 100
precision mediump float;
varying lowp vec4 color;
varying mediump vec3 world_normal;

uniform vec4 LightDir;

void main() {
    vec3 n = normalize(world_normal);
    vec3 l = normalize(LightDir.xyz);
    float diffuse = max(dot(n, l), 0.0);
    // Hemisphere ambient: cool light from the sky above, warm bounce from below.
    vec3 ambient = mix(vec3(0.40, 0.37, 0.34), vec3(0.58, 0.62, 0.68), 0.5 + 0.5 * n.y);
    // A soft rim so silhouettes read against the background: (1 − |n.z|)³, multiplied out
    // (software OpenGL evaluates pow() as exp2(log2) per pixel).
    float edge = 1.0 - abs(n.z);
    float rim = edge * edge * edge * 0.08;
    gl_FragColor = vec4(color.rgb * (ambient + 0.62 * diffuse) + rim, color.a);
}
