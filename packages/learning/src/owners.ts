/**
 * The owner of examples shared with every tenant (only an admin adds them). Any other owner is
 * a tenant, whose examples rank and show for its own requests alone.
 */
export const SHARED = "";
