/** Every Worker test file starts with the local users signed in through OAuth. */
import { beforeAll } from "vitest";
import { signInEveryone } from "./workers.js";

beforeAll(signInEveryone);
