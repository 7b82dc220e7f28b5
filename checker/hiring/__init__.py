"""The hiring team's side: pack workspaces, keep the roster, grade a batch, score it, look for copies, and show it."""
