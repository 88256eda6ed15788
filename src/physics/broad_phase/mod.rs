//! STUB until the real broad phase lands.
use crate::physics::aabb::Aabb;
use crate::physics::math::Vec3;
/// Proxy id.
pub type ProxyId = u32;
/// Debug node.
#[derive(Clone, Copy, Debug)]
pub struct BroadPhaseNode { pub aabb: Aabb, pub depth: u32, pub is_leaf: bool, pub children_overlap: bool }
/// Trait.
pub trait BroadPhase {
    fn name(&self) -> &'static str;
    fn create_proxy(&mut self, aabb: Aabb, user: u32) -> ProxyId;
    fn destroy_proxy(&mut self, proxy: ProxyId);
    fn move_proxy(&mut self, proxy: ProxyId, aabb: Aabb, displacement: Vec3) -> bool;
    fn touch_proxy(&mut self, proxy: ProxyId);
    fn fat_aabb(&self, proxy: ProxyId) -> Aabb;
    fn user_data(&self, proxy: ProxyId) -> u32;
    fn proxy_count(&self) -> usize;
    fn update_pairs(&mut self, report: &mut dyn FnMut(u32, u32));
    fn query(&self, aabb: &Aabb, visit: &mut dyn FnMut(u32) -> bool);
    fn ray_cast(&self, origin: Vec3, dir: Vec3, max_t: f32, visit: &mut dyn FnMut(u32, f32) -> f32);
    fn debug_nodes(&self, out: &mut Vec<BroadPhaseNode>);
    fn validate(&self) -> Result<(), String>;
}
pub mod dynamic_tree {
    /// Stub.
    #[derive(Default)]
    pub struct DynamicTree;
}
pub mod brute_force {
    /// Stub.
    #[derive(Default)]
    pub struct BruteForce;
}
