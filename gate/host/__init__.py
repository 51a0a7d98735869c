"""The programs and the git the gate itself runs on the host, outside the sandbox, from a trusted PATH."""
