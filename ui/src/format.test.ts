import { describe, expect, it } from "vitest";
import { describeError, formatVersion } from "./format";

describe("formatVersion", () => {
  it("prefixes a plain semantic version with v", () => {
    expect(formatVersion("0.1.0")).toBe("v0.1.0");
    expect(formatVersion("12.3.45")).toBe("v12.3.45");
  });

  it("keeps pre-release and build suffixes", () => {
    expect(formatVersion("1.0.0-beta.2")).toBe("v1.0.0-beta.2");
    expect(formatVersion("1.0.0+20261129")).toBe("v1.0.0+20261129");
  });

  it("does not double an existing v and ignores whitespace", () => {
    expect(formatVersion("v2.0.1")).toBe("v2.0.1");
    expect(formatVersion("  V2.0.1\n")).toBe("v2.0.1");
  });

  it("rejects things that are not versions", () => {
    expect(formatVersion("")).toBe("unknown version");
    expect(formatVersion("latest")).toBe("unknown version");
    expect(formatVersion("1..2")).toBe("unknown version");
  });
});

describe("describeError", () => {
  it("uses strings, Errors and message objects as they are", () => {
    expect(describeError("command app_info not found")).toBe("command app_info not found");
    expect(describeError(new Error("boom"))).toBe("boom");
    expect(describeError({ message: "denied" })).toBe("denied");
  });

  it("falls back for anything else", () => {
    expect(describeError(undefined)).toBe("unknown error");
    expect(describeError("   ")).toBe("unknown error");
    expect(describeError({ code: 3 })).toBe("unknown error");
  });
});
