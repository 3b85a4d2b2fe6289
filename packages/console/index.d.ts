/** The absolute path of the built console (index.html and assets/), which the gateway serves at /console. */
export declare const consoleAssetsDir: string;
