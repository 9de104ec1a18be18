"""The HJB solver's own metric keys: its error against the exact solution, measured every ``eval_every`` steps."""

MAX_REL_ERR_V = "hjb/max_rel_err_V"
MAX_REL_ERR_C = "hjb/max_rel_err_c"
MAX_ABS_RESIDUAL = "hjb/max_abs_residual"
