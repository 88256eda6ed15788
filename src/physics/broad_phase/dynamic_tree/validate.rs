//! The checks behind `DynamicTree::validate` (in the spirit of Box2D's
//! `b2DynamicTree_Validate`), kept apart from the tree operations. They allocate and run in
//! O(n log n), so they belong in tests and debug assertions, not in every step of a release build.

use super::{DynamicTree, Node, NULL_NODE};

impl DynamicTree {
    /// Walks the tree from the root and checks every reachable node: indices in range, each node
    /// reached once (so no cycles and no shared children), no free node linked, parent links
    /// matching child links, leaves of height 0, internal nodes with the right height, AVL
    /// balance and a box equal to their children's union. Also checks that the number of leaves
    /// is the proxy count. Returns which nodes were reached.
    pub(super) fn validate_structure(&self) -> Result<Vec<bool>, String> {
        let mut reached = vec![false; self.nodes.len()];
        if self.root == NULL_NODE {
            return match self.proxy_count {
                0 => Ok(reached),
                n => Err(format!("dynamic tree: empty root but {n} proxies")),
            };
        }
        self.check_index(self.root, "root")?;
        if self.nodes[self.root as usize].parent != NULL_NODE {
            return Err(format!("dynamic tree: root {} has a parent", self.root));
        }
        let mut stack = vec![self.root];
        let mut leaves = 0usize;
        while let Some(index) = stack.pop() {
            if reached[index as usize] {
                return Err(format!(
                    "dynamic tree: node {index} reached twice (cycle or shared child)"
                ));
            }
            reached[index as usize] = true;
            let node = &self.nodes[index as usize];
            if node.free {
                return Err(format!(
                    "dynamic tree: free node {index} is linked in the tree"
                ));
            }
            if node.is_leaf() {
                Self::check_leaf(index, node)?;
                leaves += 1;
            } else {
                self.check_internal(index, node)?;
                stack.push(node.child_a);
                stack.push(node.child_b);
            }
        }
        if leaves != self.proxy_count {
            return Err(format!(
                "dynamic tree: {leaves} leaves but {} proxies",
                self.proxy_count
            ));
        }
        Ok(reached)
    }

    /// Checks that `index` (named `what` in the message) is a node index in range.
    fn check_index(&self, index: u32, what: &str) -> Result<(), String> {
        if (index as usize) < self.nodes.len() {
            Ok(())
        } else {
            Err(format!("dynamic tree: {what} index {index} out of range"))
        }
    }

    /// A leaf has no second child either and height 0.
    fn check_leaf(index: u32, node: &Node) -> Result<(), String> {
        if node.child_b != NULL_NODE {
            return Err(format!("dynamic tree: leaf {index} has a second child"));
        }
        if node.height != 0 {
            return Err(format!(
                "dynamic tree: leaf {index} has height {}",
                node.height
            ));
        }
        Ok(())
    }

    /// An internal node: two distinct children pointing back to it, height one more than the
    /// taller child, children heights within one (AVL), box exactly the union of the children's.
    fn check_internal(&self, index: u32, node: &Node) -> Result<(), String> {
        self.check_index(node.child_a, "child")?;
        self.check_index(node.child_b, "child")?;
        if node.child_a == node.child_b {
            return Err(format!(
                "dynamic tree: node {index} has the same child twice"
            ));
        }
        let a = &self.nodes[node.child_a as usize];
        let b = &self.nodes[node.child_b as usize];
        if a.parent != index || b.parent != index {
            return Err(format!(
                "dynamic tree: children of {index} do not point back to it"
            ));
        }
        if node.height != 1 + a.height.max(b.height) {
            return Err(format!(
                "dynamic tree: node {index} has height {} but children {} and {}",
                node.height, a.height, b.height
            ));
        }
        if a.height.abs_diff(b.height) > 1 {
            return Err(format!(
                "dynamic tree: node {index} unbalanced (children heights {} and {})",
                a.height, b.height
            ));
        }
        if !node.aabb.contains(&a.aabb) || !node.aabb.contains(&b.aabb) {
            return Err(format!(
                "dynamic tree: node {index} does not contain its children"
            ));
        }
        if node.aabb != a.aabb.union(&b.aabb) {
            return Err(format!(
                "dynamic tree: node {index} is larger than its children's union"
            ));
        }
        Ok(())
    }

    /// The free list: in range, acyclic, only free nodes that the tree does not reach, as long as
    /// `free_count`; and every node is either reached from the root or free (nothing leaked).
    pub(super) fn validate_free_list(&self, reached: &[bool]) -> Result<(), String> {
        let mut listed = vec![false; self.nodes.len()];
        let mut count = 0usize;
        let mut index = self.free_list;
        while index != NULL_NODE {
            self.check_index(index, "free list")?;
            if listed[index as usize] {
                return Err(format!("dynamic tree: free list loops at node {index}"));
            }
            listed[index as usize] = true;
            count += 1;
            let node = &self.nodes[index as usize];
            if !node.free || reached[index as usize] {
                return Err(format!(
                    "dynamic tree: node {index} is in the free list but in use"
                ));
            }
            index = node.parent;
        }
        if count != self.free_count {
            return Err(format!(
                "dynamic tree: free list holds {count} nodes, free_count says {}",
                self.free_count
            ));
        }
        let in_use = reached.iter().filter(|&&r| r).count();
        if in_use + count != self.nodes.len() {
            return Err(format!(
                "dynamic tree: {} nodes leaked (neither in the tree nor free)",
                self.nodes.len() - in_use - count
            ));
        }
        Ok(())
    }

    /// The move buffer: distinct live leaves with their `moved` flag set, and no flag set on any
    /// other node.
    pub(super) fn validate_move_buffer(&self) -> Result<(), String> {
        let mut seen = vec![false; self.nodes.len()];
        for &proxy in &self.move_buffer {
            self.check_index(proxy, "move buffer")?;
            let node = &self.nodes[proxy as usize];
            if node.free || !node.is_leaf() || !node.moved {
                return Err(format!(
                    "dynamic tree: move buffer entry {proxy} is not a flagged proxy"
                ));
            }
            if seen[proxy as usize] {
                return Err(format!(
                    "dynamic tree: proxy {proxy} twice in the move buffer"
                ));
            }
            seen[proxy as usize] = true;
        }
        let flagged = self.nodes.iter().filter(|node| node.moved).count();
        if flagged != self.move_buffer.len() {
            return Err(format!(
                "dynamic tree: {flagged} moved flags but {} buffered moves",
                self.move_buffer.len()
            ));
        }
        Ok(())
    }

    /// User values are distinct among live proxies (the pair contract relies on it).
    pub(super) fn validate_users(&self) -> Result<(), String> {
        let mut users: Vec<u32> = self
            .live_nodes()
            .filter(|(_, node)| node.is_leaf())
            .map(|(_, node)| node.user)
            .collect();
        users.sort_unstable();
        match users.windows(2).find(|w| w[0] == w[1]) {
            Some(pair) => Err(format!(
                "dynamic tree: user {} used by two proxies",
                pair[0]
            )),
            None => Ok(()),
        }
    }
}
