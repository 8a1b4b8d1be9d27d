#if !defined(BINARY_SEARCH_TREE_H)
#define BINARY_SEARCH_TREE_H

namespace binary_search_tree {

}  // namespace binary_search_tree

#endif // BINARY_SEARCH_TREE_H