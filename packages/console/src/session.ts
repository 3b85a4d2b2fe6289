import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Session } from "./types.js";

/** The signed-in session (tenant, admin, Jaeger's address), given to every page by the app. */
export const SessionContext = createContext<Session>({ tenant: "", admin: false, keysRequired: false });

/** The signed-in session. */
export const useSession = (): Session => useContext(SessionContext);
