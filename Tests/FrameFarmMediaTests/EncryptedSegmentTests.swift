import Foundation
import Testing
@testable import FrameFarmMedia

/// AES-128 HLS decryption against OpenSSL's (`openssl enc -aes-128-cbc`, PKCS#7 padding) as the reference.
@Suite struct EncryptedSegmentTests {
    private static let key = (0..<16).map { UInt8($0 * 17 & 0xFF) }
    private static let iv = (0..<16).map { UInt8(0xF0 - $0) }

    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// `plain` encrypted by the openssl CLI with `key` and `iv`.
    private func sealedByOpenSSL(_ plain: Data, key: [UInt8] = key) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["enc", "-aes-128-cbc", "-K", hex(key), "-iv", hex(Self.iv)]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(plain)
        try input.fileHandleForWriting.close()
        let sealed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        return sealed
    }

    /// Lengths around the block size: a whole block of padding, one byte of it, fifteen.
    @Test(arguments: [0, 1, 15, 16, 17, 188 * 7, 4096])
    func decryptsWhatOpenSSLEncrypts(length: Int) throws {
        let plain = Data((0..<length).map { UInt8(($0 * 31 + 7) & 0xFF) })
        let sealed = try sealedByOpenSSL(plain)
        #expect(sealed.count == (length / 16 + 1) * 16)
        #expect(try EncryptedSegment.decrypt(sealed, key: Self.key, iv: Self.iv) == plain)
    }

    @Test func whatCannotBeDecryptedIsSaid() throws {
        let plain = Data(repeating: 0x47, count: 188 * 3)
        let sealed = try sealedByOpenSSL(plain)
        #expect(throws: InputError.decryptionFailed("561 bytes is not a whole number of AES blocks: not AES-128 data, or cut short")) {
            try EncryptedSegment.decrypt(sealed.dropLast(15), key: Self.key, iv: Self.iv)
        }
        // Another key: the last block's padding comes out wrong (for this key and data, as OpenSSL also finds).
        let otherKey = Array(Self.key.reversed())
        let checked = Process()
        checked.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        checked.arguments = ["enc", "-d", "-aes-128-cbc", "-K", hex(otherKey), "-iv", hex(Self.iv)]
        let input = Pipe()
        checked.standardInput = input
        checked.standardOutput = FileHandle.nullDevice
        checked.standardError = FileHandle.nullDevice
        try checked.run()
        input.fileHandleForWriting.write(sealed)
        try input.fileHandleForWriting.close()
        checked.waitUntilExit()
        #expect(checked.terminationStatus != 0, "OpenSSL finds the padding wrong too")
        #expect {
            try EncryptedSegment.decrypt(sealed, key: otherKey, iv: Self.iv)
        } throws: { ($0 as? InputError)?.description.hasPrefix("cannot decrypt it: its AES-128 padding is wrong: the key does not open it") == true }
    }
}
