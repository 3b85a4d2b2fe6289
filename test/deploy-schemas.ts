// Offline validation of deploy files against the JSON schemas kept in the
// repository (deploy/schemas/README.md): Kubernetes v1.31 "standalone-strict"
// (unknown fields rejected), the Compose Specification, and KEDA's ScaledObject.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv } from "ajv";
import type { ErrorObject, ValidateFunction } from "ajv";

/** The repository's copy of the schemas (deploy/schemas/regenerate.mjs rebuilds it from the sources). */
export const SCHEMAS_DIR = fileURLToPath(new URL("../deploy/schemas/", import.meta.url));

export function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).map((error) => `${error.instancePath || "/"} ${error.message ?? ""} ${JSON.stringify(error.params)}`).join("\n");
}

function readJson(path: string): object {
  return JSON.parse(readFileSync(`${SCHEMAS_DIR}/${path}`, "utf8")) as object;
}

/** The Compose Specification's validator. */
export function composeValidator(): ValidateFunction {
  // The schema declares draft-07 under an https URI Ajv does not know: Ajv's default
  // draft-07 dialect is the right one, the meta-schema check is left out.
  const ajv = new Ajv({ strict: false, validateSchema: false, allErrors: true });
  return ajv.compile(readJson("compose/compose-spec.json"));
}

export interface KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

/**
 * Validates Kubernetes objects by their apiVersion and kind. A kind without a
 * schema here is an error, so nothing rendered goes unchecked.
 */
export class KubernetesValidator {
  private readonly ajv = new Ajv({ strict: false, allErrors: true, logger: false });
  // Compiling a workload schema takes about half a second: once per kind.
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor() {
    // OpenAPI formats the schemas use; their values are checked by the API server, not here.
    for (const format of ["int32", "int64", "byte", "date-time"]) this.ajv.addFormat(format, true);
  }

  /** The errors of one object, or an empty string when it is valid. */
  errors(object: KubernetesObject): string {
    if (object.apiVersion === "keda.sh/v1alpha1" && object.kind === "ScaledObject") {
      // KEDA's CRD schema pins neither apiVersion nor kind (checked above) and lets unknown fields through.
      return this.check("keda/scaledobject_v1alpha1.json", object);
    }
    const [group, version] = object.apiVersion.includes("/") ? object.apiVersion.split("/") : ["", object.apiVersion];
    const file = `${object.kind.toLowerCase()}${group ? `-${group.split(".")[0]}` : ""}-${version}.json`;
    if (!existsSync(`${SCHEMAS_DIR}/kubernetes/v1.31.0-standalone-strict/${file}`)) {
      return `no schema for ${object.apiVersion} ${object.kind} (${file})`;
    }
    return this.check(`kubernetes/v1.31.0-standalone-strict/${file}`, object);
  }

  private check(path: string, object: KubernetesObject): string {
    let validate = this.compiled.get(path);
    if (!validate) {
      validate = this.ajv.compile(readJson(path));
      this.compiled.set(path, validate);
    }
    return validate(object) ? "" : describeErrors(validate.errors);
  }
}
